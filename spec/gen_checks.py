"""gen_checks.py -- the argument checks that follow from a function's
parameter kinds, for its generated front end (spec/gen_frontends.py).

A chapter opts in with "frontends LAYER checks" (docs/spec.md, "Argument
checks"): its bodies then leave these checks to the front end.  What is
generated, in this order:

- a request passed by address (an out or inout Request, or a byref one):
  not NULL (cm_check_request_ptr);
- each peer of a message (a parameter of kind rank, with its tag, its buffer
  and the communicator): cm_p2p_check, which checks in turn the
  communicator handle, the count (>= 0), the datatype (a valid committed
  handle), that count elements of it fit, the buffer (NULL only as
  MPI_BOTTOM), the rank (in the group, or MPI_PROC_NULL, or with
  +ANY_SOURCE MPI_ANY_SOURCE) and the tag (0..MPI_TAG_UB, or with +ANY_TAG
  MPI_ANY_TAG).  A peer pairs with the next tag after it and with the
  nearest buffer before it (MPI_Sendrecv: sendbuf with dest, recvbuf with
  source; MPI_Sendrecv_replace: its one buffer with both); a peer with no
  buffer before it (a probe) has its envelope checked alone
  (cm_p2p_check_envelope).  A _c form's
  count is an MPI_Count: its conversion (src/mpi/large.h) checks it and its
  int twin the rest, so it gets no message check; a _c form compiled in
  another layer than its twin (layer_c=: src/mpi/large_p2p.c) only converts
  and calls the twin, so it gets no check at all.

A block flagged 'bodycheck' keeps its checks in its body and gets none
here: the message calls test the common case inline (p2p/check.h,
cm_send_args_ok) and call the same helper only when that fails, so the
8-byte MPI_Send/MPI_Recv path pays for one test, not two; the buffer
flushes raise a NULL request on the buffer's owner (communicator or
session), not on MPI_COMM_WORLD.  The texts are the helpers'
(src/p2p/check.c), so they are the ones the tests read.
"""

# Where each helper is defined: a front end compiled below that layer may
# not call it (src/layers.txt; the caller checks).
HELPERS = {'cm_check_request_ptr': 'p2p', 'cm_p2p_check': 'p2p', 'cm_p2p_check_envelope': 'p2p'}
INCLUDES = {'p2p': '#include "p2p/check.h"\n'}


def _type(fn, p):
    return p.base_c if fn.large else p.base


def request_ptr_checks(fn):
    """cm_check_request_ptr of every request the C binding passes by address."""
    call = '"%s"' % fn.name
    return [('cm_check_request_ptr', '%s, %s' % (call, p.name)) for p in fn.params
            if _type(fn, p) == 'Request' and not p.dims and (p.dir != 'in' or 'byref' in p.attrs)]


def message_checks(fn):
    """cm_p2p_check of each (buffer, peer, tag) of a message, with the communicator."""
    if fn.large:
        return []
    params = fn.params
    comms = [p for p in params if p.base == 'Comm' and p.dir == 'in' and not p.dims]
    out = []
    for i, p in enumerate(params):
        if p.kind != 'rank' or len(comms) != 1:
            continue
        tag = next((q for q in params[i + 1:] if q.kind == 'tag'), None)
        bufs = [q for q in params[:i] if q.buf and q.buf[2] is None]
        if tag is None:
            continue
        role = 'CM_PEER_SOURCE' if 'ANY_SOURCE' in p.specials else 'CM_PEER_DEST'
        if not bufs:        # a probe: the envelope alone
            out.append(('cm_p2p_check_envelope', '"%s", %s, %s, %s, %s' % (
                fn.name, p.name, role, tag.name, comms[0].name)))
            continue
        count, dtype, _ = bufs[-1].buf
        out.append(('cm_p2p_check', '"%s", %s, %s, %s, %s, %s, %s, %s' % (
            fn.name, bufs[-1].name, count, dtype, p.name, role, tag.name, comms[0].name)))
    return out


def checks(fn):
    """[(helper, its arguments as C)] in the order they run."""
    if fn.ret != 'int' or 'bodycheck' in fn.flags:
        return []   # an error is returned as the call's int
    if fn.large and fn.values.get('layer_c'):
        return []   # converts its count and calls its int twin, which checks
    return request_ptr_checks(fn) + message_checks(fn)


def check_layers(fn, layer, layers):
    """Errors where a check calls a helper of a layer above the front end's."""
    errors = []
    for helper, _ in checks(fn):
        need = HELPERS[helper]
        if layers.index(layer) < layers.index(need):
            errors.append('%s: %s: its check %s lives in layer %s, above its front end\'s (%s)' % (
                fn.where, fn.name, helper, need, layer))
    return errors


def includes(fns):
    """The headers the checks of fns need."""
    need = sorted({HELPERS[h] for f in fns for h, _ in checks(f)})
    return ''.join(INCLUDES[n] for n in need)


def call_with_checks(fn, impl_call):
    """The statements that set cm_rc: each check in turn, then the impl's
    call while all passed (one return stays in the front end); None when
    fn has no check."""
    cs = checks(fn)
    if not cs:
        return None
    lines = ['    int cm_rc = %s(%s);\n' % cs[0]]
    for helper, args in cs[1:]:
        lines.append('    if (cm_rc == MPI_SUCCESS)\n        cm_rc = %s(%s);\n' % (helper, args))
    lines.append('    if (cm_rc == MPI_SUCCESS)\n        cm_rc = %s;\n' % impl_call)
    return ''.join(lines)
