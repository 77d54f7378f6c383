#!/usr/bin/env python3
"""Generate coreprof's PMPI wrappers from corempi's API spec (spec/*.api).

Every function of the spec that records a call (not the 'norecord' old names
of chapters 16 and 17) is wrapped, plain and _c form, with the spec's
prototype.  What each wrapper records (peer, bytes, tag, communicator,
request, collective) follows from the spec's parameters: their kinds
(rank, tag, count), directions, buffers (buf(COUNT, DATATYPE)) and the block's
flags -- no per-function code but the few tables below.

  gen_wrappers.py SPEC_DIR OUT.c [--ids IDS.h] [--probe-cc "mpicc.openmpi" ...]

With --probe-cc the target MPI's mpi.h (the compiler's) is read first: a
function it does not declare is not wrapped; then the generated file is
compiled (and linked) with that compiler, and functions it declares
differently (const, types) are dropped and the file regenerated until it
builds.  The skipped names are counted on stdout and listed at the top of OUT.c.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "spec"))
import spec  # noqa: E402  (spec/spec.py)

# Written by hand in prof_env.c / prof_pcontrol.c (they start/stop the profiler).
HANDWRITTEN = {"Init", "Init_thread", "Finalize", "Abort", "Pcontrol"}

# Calls that complete requests: how to find what completed.
COMPLETIONS = {
    # name: (count expr or None for a single request, kind)
    "Wait": "one", "Test": "one_flag",
    "Waitall": "all", "Testall": "all_flag",
    "Waitany": "any", "Testany": "any_flag",
    "Waitsome": "some", "Testsome": "some",
}

# Polls: calls a program makes in a loop until something happened.  An
# unsuccessful one (the condition below) joins the open fold of identical
# unsuccessful polls (prof_record.h, cm_prof_fold_*); the key says "identical".
POLLS = {
    "Iprobe": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, cm_prof_fold_source_tag(source, tag), CM_PROF_KEY(comm))"),
    "Improbe": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, cm_prof_fold_source_tag(source, tag), CM_PROF_KEY(comm))"),
    "Request_get_status": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, CM_PROF_KEY(request), 0)"),
    "Test": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, CM_PROF_KEY(cm_req_), 0)"),
    "Testany": ("*flag == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, count)"),
    "Testall": ("*flag == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, count)"),
    "Testsome": ("*outcount == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, incount)"),
}

# Probes look at a message without moving it: 0 bytes (the receive records them).
PROBES = {"Probe", "Iprobe", "Mprobe", "Improbe"}

# What the spec does not say: the calls above (what completes, what polls,
# what only looks) and the wrappers of prof_env.c/prof_pcontrol.c.  The rest
# follows from the spec's parameters (kinds, directions, buffers, flags).


class Param:
    """A parameter of one C form (plain or _c) of a spec function."""

    def __init__(self, sp, large):
        self.spec = sp
        self.name = sp.name
        self.base = sp.base_c if large else sp.base
        self.scalar = not sp.dims
        self.dir = sp.dir
        self.kind = sp.kind
        self.specials = sp.specials


class Func:
    """A function of the spec as the wrappers see it: name without MPI_, the
    C return type and parameter text of its prototype, and the facts the
    recording needs, each read from the spec (docs/spec.md)."""

    def __init__(self, fn):
        self.spec = fn
        self.name = fn.name[4:]
        self.ret = spec.RETURNS[fn.ret]
        self.params_text = ", ".join(fn.c_params()) or "void"
        self.params = [Param(p, fn.large) for p in fn.params
                       if (p.base_c if fn.large else p.base) not in ("-", "varargs")]
        self.by_name = {p.name: p for p in self.params}
        self.collective = "collective" in fn.flags

    def has(self, n):
        return n in self.by_name

    def arg_names(self):
        return ", ".join(p.name for p in self.params)

    def first(self, pred):
        return next((p for p in self.params if pred(p)), None)

    def buffers(self):
        return [p for p in self.params if p.base == "buf" and p.spec.buf]


def comm_name(f):
    """The communicator: the first Comm passed by value."""
    p = f.first(lambda p: p.base == "Comm" and p.dir == "in" and p.scalar and "byref" not in p.spec.attrs)
    return p.name if p else None


def message_ranks(f):
    """[(rank parameter, CPT flag, tag parameter)] of the messages of a
    point-to-point call: a rank the next parameter of which is its tag.  A
    source may be MPI_ANY_SOURCE or fills a buffer (the nearest before it
    that is OUT); else it is a destination.  A collective's only rank is its
    root (two, as the leaders of MPI_Intercomm_create, are no root)."""
    ps = f.params
    ranks = [i for i, p in enumerate(ps) if p.kind == "rank" and p.dir == "in" and p.scalar and p.base == "int"]
    if f.collective:
        return [(ps[ranks[0]], "CPT_F_ROOT", None)] if len(ranks) == 1 else []
    out = []
    for i in ranks:
        if i + 1 >= len(ps) or ps[i + 1].kind != "tag":
            continue
        bufs = [q for q in ps[:i] if q.base == "buf"]
        recv = "ANY_SOURCE" in ps[i].specials or (bufs and bufs[-1].dir == "out")
        out.append((ps[i], "CPT_F_RECV" if recv else "CPT_F_SEND", ps[i + 1]))
    return out


def rank_of(f, flag):
    return next((r for r, fl, _ in message_ranks(f) if fl == flag), None)


def tag_param(f):
    return f.first(lambda p: p.kind == "tag" and p.dir == "in" and p.scalar and p.base == "int")


def flag_param(f):
    """The OUT logical that says whether something happened (Test, Iprobe)."""
    return f.first(lambda p: p.base == "bool" and p.dir == "out" and p.scalar)


def creates_request(f):
    """The OUT request of a call that starts an operation (the completions
    and MPI_Start have theirs INOUT)."""
    if f.name in COMPLETIONS:
        return None
    p = f.first(lambda p: p.base == "Request" and p.dir == "out" and p.scalar)
    return p.name if p else None


def recv_status(f):
    """The OUT status of a call that matches a message (Recv, Probe, Mrecv,
    Sendrecv...): it tells the matched source."""
    p = f.first(lambda p: p.base == "Status" and p.dir == "out" and p.scalar)
    if p and (rank_of(f, "CPT_F_RECV") or f.first(lambda q: q.base == "Message")):
        return p.name
    return None


def scalar_count(f, expr):
    """The count parameter a buffer's count expression starts with, when it
    is a scalar count (int or MPI_Count): 'sendcount*rsize(comm)' -> sendcount."""
    m = re.match(r"^(\w+)", expr)
    p = f.by_name.get(m.group(1)) if m else None
    if p and p.scalar and p.base in ("int", "Count") and p.kind == "count":
        return p.name
    return None


def count_pairs(f):
    """[(buffer, count, datatype)] of the buffers whose count is a scalar."""
    out = []
    for b in f.buffers():
        c = scalar_count(f, b.spec.buf[0])
        if c and f.has(b.spec.buf[1]):
            out.append((b, c, b.spec.buf[1]))
    return out


def bytes_expr(f):
    """count * type size of the first buffer with a scalar count; when a send
    buffer may be MPI_IN_PLACE (or its receive buffer) the receive buffer's
    counts.  A probe moves no bytes (the receive that follows it records them)."""
    if f.name in PROBES or not moves_data(f):
        return "0"
    pairs = count_pairs(f)
    if not pairs:
        return vbytes_expr(f)
    b, c, t = pairs[0]
    e = f"cm_prof_bytes({c}, {t})"
    later = [(b2, c2, t2) for b2, c2, t2 in pairs[1:] if b2.dir == "out" and (c2, t2) != (c, t)]
    if b.dir == "in" and later and ("IN_PLACE" in b.specials or "IN_PLACE" in later[0][0].specials):
        _, c2, t2 = later[0]
        e = f"({b.name} == MPI_IN_PLACE ? cm_prof_bytes({c2}, {t2}) : {e})"
    return e


def array_counts(f, b):
    """A buffer's array of per-peer counts: (array, per member of the group?)
    for buf(counts, ...) and buf(sum(counts), ...), else None."""
    expr = b.spec.buf[0]
    m = re.match(r"^(?:sum\((\w+)\)|(\w+))$", expr)
    if not m:
        return None
    name = m.group(1) or m.group(2)
    p = f.by_name.get(name)
    if not p or p.scalar or p.base not in ("int", "Count"):
        return None
    return name, m.group(1) is not None


def vbytes_expr(f):
    """The v-forms (arrays of counts, no scalar one): the mean per peer of the bytes
    this rank sends, so that they read like their plain forms (Alltoall records its
    per-peer block) and the report's matrix (every member -> every other member with
    the recorded bytes) adds up to what was sent.  Reduce_scatter's recvcounts are
    the blocks of its send buffer, one per member."""
    cn = comm_name(f)
    bufs = [(b, array_counts(f, b)) for b in f.buffers()]
    bufs = [(b, ac) for b, ac in bufs if ac]
    if not bufs or not cn:
        return "0"
    b, (counts, per_member) = bufs[0]
    types = b.spec.buf[1]
    typ = f"{types}[cm_i_]" if not f.by_name[types].scalar else types
    recv = [(b2, ac2) for b2, ac2 in bufs[1:] if b2.dir == "out"]
    if "IN_PLACE" in b.specials and recv:
        b2, (counts2, _) = recv[0]
        types2 = b2.spec.buf[1]
        counts = f"({b.name} == MPI_IN_PLACE ? {counts2} : {counts})"
        if f.by_name[types].scalar:
            typ = f"({b.name} == MPI_IN_PLACE ? {types2} : {types})"
        else:
            typ = f"({b.name} == MPI_IN_PLACE ? {types2} : {types})[cm_i_]"
    neighbour = any("degree(" in d for d in f.by_name[bufs[0][1][0]].spec.dims)
    peers = "cm_prof_peers(cm_c_, {}, {})".format(cn, "1" if neighbour else "0")
    if per_member:
        peers = "(cm_c_ ? cm_c_->size : 0)"
    return f"cm_prof_mean_bytes({peers}, cm_i_, cm_prof_bytes({counts}[cm_i_], {typ}))"


def collective_op(f):
    """A collective operation: chapter 6's or a neighbourhood one (spec
    'collective' with buffers; the barriers), in any form.  The other
    collective calls (communicator and window constructors) move no data."""
    return f.collective and (f.spec.chapter == "coll" or (f.spec.chapter == "topo" and bool(f.buffers())))


def is_collective(f):
    """Recorded as a collective (CPT_F_COLLECTIVE): a collective operation,
    blocking or nonblocking, plain or _c.  Not its persistent _init: what
    it records is its MPI_Start's."""
    return collective_op(f) and not f.name.endswith("_init") and not f.name.endswith("_init_c")


def io_access(f):
    """A data access call of MPI-IO (chapter 14: a buffer with a scalar count;
    a split collective's _end has none, its _begin records the bytes)."""
    return f.spec.chapter == "io" and bool(count_pairs(f))


def io_status(f):
    """The OUT status of a blocking MPI-IO data access: it counts the bytes
    the call moved (fewer than asked at the end of the file)."""
    p = f.first(lambda p: p.base == "Status" and p.dir == "out" and p.scalar)
    return p.name if p and io_access(f) else None


def moves_data(f):
    """Its bytes are recorded: a message (a rank and its tag, or a Message
    handle), a collective operation or MPI_Reduce_local (chapter 6), an
    MPI-IO data access.  Pack/Unpack, MPI_Status_set_elements and one-sided
    calls record 0 bytes (as before the spec)."""
    return bool(message_ranks(f)) or bool(f.first(lambda p: p.base == "Message")) \
        or collective_op(f) or f.spec.chapter == "coll" or io_access(f)


def received(f):
    """The condition under which a receive's status holds the matched message."""
    fl = flag_param(f)
    return "cm_rc_ == MPI_SUCCESS" + (f" && *{fl.name}" if fl else "")


def gen_plain(f, call_id):
    """Wrapper for every call that is neither a completion nor Start(all)."""
    args = f.arg_names()
    L = []
    L.append(f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})")
    L.append("{")
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    int_ret = f.ret == "int"
    flags = []
    if is_collective(f):
        flags.append("CPT_F_COLLECTIVE")
    req = creates_request(f)
    if req:
        flags.append("CPT_F_NONBLOCKING")
        if f.name.endswith("_init"):
            flags.append("CPT_F_PERSISTENT_INIT")
    status = recv_status(f)
    iost = io_status(f)
    if status or iost:
        status = status or iost
        L.append("    MPI_Status cm_st_;")
        L.append(f"    if ({status} == MPI_STATUS_IGNORE) {status} = &cm_st_;")
    if f.name == "Comm_free" and f.has("comm"):
        L.append("    cm_prof_comm_forget(*comm);")
    if f.name == "Type_free":
        L.append("    cm_prof_type_forget();")
    if f.name == "Request_free":
        L.append("    cm_prof_req_forget(*request);")
    L.append("    uint64_t cm_t0_ = cm_prof_now();")
    L.append(f"    {f.ret} cm_rc_ = PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t1_ = cm_prof_now();")
    poll = POLLS.get(f.name)
    if poll:
        idle, key = poll
        L.append("    void *cm_ra_ = __builtin_return_address(0);")
        L.append(f"    int cm_idle_ = cm_rc_ == MPI_SUCCESS && {idle};")
        L.append(f"    cm_prof_fold_key_t cm_fk_ = {key.format(id=call_id)};")
        L.append("    if (cm_idle_ && cm_prof_fold_extend(cm_fk_, cm_t0_, cm_t1_)) return cm_rc_;")
    flag_expr = " | ".join(flags) if flags else "0"
    if int_ret:
        flag_expr = f"({flag_expr}) | (cm_rc_ != MPI_SUCCESS ? CPT_F_ERROR : 0)"
    cn = comm_name(f)
    if cn:
        L.append(f"    const cm_prof_comm_t *cm_c_ = cm_prof_comm({cn}, {'cm_rc_' if int_ret else '0'});")
    L.append(f"    cpt_event *cm_e_ = cm_prof_begin({call_id}, {flag_expr}, cm_t0_, cm_t1_, __builtin_return_address(0));")
    if cn:
        L.append("    cm_e_->comm = cm_c_ ? cm_c_->id : 0;")
    # peer: the first rank of a message (a destination before a source), or the root
    ranks = message_ranks(f)
    ranks = [r for r in ranks if r[1] == "CPT_F_SEND"] + [r for r in ranks if r[1] != "CPT_F_SEND"]
    sender = bool(rank_of(f, "CPT_F_SEND"))
    msg = f.first(lambda p: p.base == "Message")
    if ranks:
        rp, pflag, _ = ranks[0]
        if pflag == "CPT_F_RECV" and status:
            L.append(f"    int cm_src_ = ({received(f)}) ? {status}->MPI_SOURCE : {rp.name};")
            src = "cm_src_"
        else:
            src = rp.name
        if cn:
            L.append(f"    cm_prof_set_peer(cm_e_, cm_c_, {src}, {pflag});")
        else:
            L.append(f"    cm_e_->peer = {src}; cm_e_->flags |= {pflag} | CPT_F_PEER_LOCAL;")
    elif msg and status:
        L.append(f"    if (cm_rc_ == MPI_SUCCESS) cm_prof_set_peer(cm_e_, cm_prof_comm_unknown(), {status}->MPI_SOURCE, CPT_F_RECV);")
    # tag: a receive reports the matched tag
    tp = tag_param(f)
    if tp:
        if status and not sender:
            L.append(f"    cm_e_->tag = ({received(f)}) ? {status}->MPI_TAG : {tp.name};")
        else:
            L.append(f"    cm_e_->tag = {tp.name};")
    elif msg and status:
        L.append(f"    if (cm_rc_ == MPI_SUCCESS) cm_e_->tag = {status}->MPI_TAG;")
    # bytes: a receive that matched reports the matched size
    be = bytes_expr(f)
    if iost:
        L.append(f"    cm_e_->bytes = cm_rc_ == MPI_SUCCESS ? cm_prof_status_bytes({iost}) : 0;")
    elif status and not sender:
        if f.name in PROBES:
            L.append("    cm_e_->bytes = 0;")
        else:
            L.append(f"    cm_e_->bytes = ({received(f)}) ? cm_prof_status_bytes({status}) : {be};")
    else:
        L.append(f"    cm_e_->bytes = {be};")
    if req:
        persistent = "1" if f.name.endswith("_init") else "0"
        L.append(f"    if (cm_rc_ == MPI_SUCCESS) cm_e_->request = cm_prof_req_add(*{req}, cm_e_, {persistent});")
    L.append("    cm_prof_commit(cm_e_);")
    if poll:
        L.append("    if (cm_idle_) cm_prof_fold_open(cm_e_, cm_fk_);")
    # Sendrecv: the receive half as a secondary record
    source = rank_of(f, "CPT_F_RECV")
    if sender and source and status:
        rt = next(t for r, _, t in message_ranks(f) if r is source)
        L.append(f"    cpt_event *cm_e2_ = cm_prof_begin({call_id}, ({flag_expr}) | CPT_F_SECONDARY, cm_t0_, cm_t1_, __builtin_return_address(0));")
        L.append("    cm_e2_->comm = cm_e_->comm;")
        L.append(f"    cm_prof_set_peer(cm_e2_, cm_c_, cm_rc_ == MPI_SUCCESS ? {status}->MPI_SOURCE : {source.name}, CPT_F_RECV);")
        L.append(f"    cm_e2_->tag = {rt.name};")
        L.append(f"    cm_e2_->bytes = cm_rc_ == MPI_SUCCESS ? cm_prof_status_bytes({status}) : 0;")
        L.append("    cm_prof_commit(cm_e2_);")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def gen_completion(f, call_id):
    kind = COMPLETIONS[f.name]
    args = f.arg_names()
    L = [f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})", "{"]
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    if kind.startswith("one"):
        L.append("    MPI_Status cm_st_;")
        L.append("    if (status == MPI_STATUS_IGNORE) status = &cm_st_;")
        L.append("    MPI_Request cm_req_ = *request;")
        L.append("    uint64_t cm_t0_ = cm_prof_now();")
        L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
        L.append("    uint64_t cm_t1_ = cm_prof_now();")
        if f.name in POLLS:
            idle, key = POLLS[f.name]
            L.append("    void *cm_ra_ = __builtin_return_address(0);")
            L.append(f"    if (cm_rc_ == MPI_SUCCESS && {idle}) {{")
            L.append(f"        cm_prof_idle_poll({call_id}, {key.format(id=call_id)}, cm_t0_, cm_t1_, cm_ra_);")
            L.append("        return cm_rc_;")
            L.append("    }")
        L.append(f"    cm_prof_begin_commit({call_id}, cm_rc_ != MPI_SUCCESS ? CPT_F_ERROR : 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
        done = "cm_rc_ == MPI_SUCCESS" + (" && *flag" if kind == "one_flag" else "")
        L.append(f"    if ({done}) cm_prof_completed({call_id}, cm_req_, status, cm_t0_, cm_t1_, __builtin_return_address(0));")
    else:
        cnt = "incount" if f.has("incount") else "count"
        L.append(f"    MPI_Request cm_small_[16], *cm_reqs_ = {cnt} <= 16 ? cm_small_ : cm_prof_scratch_reqs({cnt});")
        L.append(f"    for (int cm_i_ = 0; cm_reqs_ && cm_i_ < {cnt}; cm_i_++) cm_reqs_[cm_i_] = array_of_requests[cm_i_];")
        if f.has("array_of_statuses"):
            L.append(f"    if (array_of_statuses == MPI_STATUSES_IGNORE) array_of_statuses = cm_prof_scratch_statuses({cnt});")
            L.append(f"    if (!array_of_statuses) return PMPI_{f.name}({args.replace('array_of_statuses', 'MPI_STATUSES_IGNORE')});")
        else:
            L.append("    MPI_Status cm_st_;")
            L.append("    if (status == MPI_STATUS_IGNORE) status = &cm_st_;")
        L.append("    uint64_t cm_t0_ = cm_prof_now();")
        L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
        L.append("    uint64_t cm_t1_ = cm_prof_now();")
        L.append("    void *cm_ra_ = __builtin_return_address(0);")
        if f.name in POLLS:
            idle, key = POLLS[f.name]
            L.append(f"    if (cm_reqs_ && cm_rc_ == MPI_SUCCESS && {idle}) {{")
            L.append(f"        cm_prof_idle_poll({call_id}, {key.format(id=call_id)}, cm_t0_, cm_t1_, cm_ra_);")
            L.append("        return cm_rc_;")
            L.append("    }")
        L.append(f"    cm_prof_begin_commit({call_id}, cm_rc_ != MPI_SUCCESS && cm_rc_ != MPI_ERR_IN_STATUS ? CPT_F_ERROR : 0, cm_t0_, cm_t1_, cm_ra_);")
        L.append("    if (cm_reqs_ && (cm_rc_ == MPI_SUCCESS || cm_rc_ == MPI_ERR_IN_STATUS)) {")
        if kind.startswith("all"):
            cond = "1" if kind == "all" else "*flag"
            L.append(f"        if ({cond}) for (int cm_i_ = 0; cm_i_ < {cnt}; cm_i_++)")
            L.append(f"            cm_prof_completed({call_id}, cm_reqs_[cm_i_], &array_of_statuses[cm_i_], cm_t0_, cm_t1_, cm_ra_);")
        elif kind.startswith("any"):
            ix = f.first(lambda p: p.base == "int" and p.dir == "out" and p.scalar and not p.kind).name
            cond = f"*{ix} != MPI_UNDEFINED" + (" && *flag" if kind == "any_flag" else "")
            L.append(f"        if ({cond} && *{ix} >= 0 && *{ix} < {cnt})")
            L.append(f"            cm_prof_completed({call_id}, cm_reqs_[*{ix}], status, cm_t0_, cm_t1_, cm_ra_);")
        else:
            L.append("        if (*outcount != MPI_UNDEFINED) for (int cm_i_ = 0; cm_i_ < *outcount; cm_i_++) {")
            L.append("            int cm_x_ = array_of_indices[cm_i_];")
            L.append(f"            if (cm_x_ >= 0 && cm_x_ < {cnt}) cm_prof_completed({call_id}, cm_reqs_[cm_x_], &array_of_statuses[cm_i_], cm_t0_, cm_t1_, cm_ra_);")
            L.append("        }")
        L.append("    }")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def gen_start(f, call_id):
    args = f.arg_names()
    L = [f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})", "{"]
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t0_ = cm_prof_now();")
    L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t1_ = cm_prof_now();")
    if f.name == "Start":
        L.append(f"    cm_prof_started({call_id}, *request, cm_rc_, 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
    else:
        L.append("    for (int cm_i_ = 0; cm_i_ < count; cm_i_++)")
        L.append(f"        cm_prof_started({call_id}, array_of_requests[cm_i_], cm_rc_, cm_i_ > 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def call_ids(funcs):
    return {f.name: 16 + i for i, f in enumerate(funcs)}  # CPT_CALL_FIRST_MPI


def generate(funcs, skip):
    ids = call_ids(funcs)
    out = ["/* generated by src/prof/gen_wrappers.py from the spec (spec/<part>.api): do not edit */"]
    if skip:
        out.append("/* not wrapped for this MPI (missing or declared differently): "
                   + ", ".join(sorted(skip)) + " */")
    out.append('#include "prof_record.h"')
    out.append("")
    out.append("const cm_prof_call_name_t cm_prof_call_names[] = {")
    for f in funcs:
        out.append(f'    {{{ids[f.name]}, "MPI_{f.name}"}},')
    out.append("    {0, 0}")
    out.append("};")
    out.append("")
    for f in funcs:
        if f.name in HANDWRITTEN or f.name in skip:
            continue
        if f.name in COMPLETIONS:
            body = gen_completion(f, ids[f.name])
        elif f.name in ("Start", "Startall"):
            body = gen_start(f, ids[f.name])
        else:
            body = gen_plain(f, ids[f.name])
        out.append(f"/* MPI_{f.name} */")
        out.append(f"#if !defined(MPI_{f.name}) && !defined(PMPI_{f.name})  /* some MPIs make it a macro */")
        out.append(body)
        out.append("#endif")
        out.append("")
    return "\n".join(out) + "\n"


def gen_ids_header(funcs):
    ids = call_ids(funcs)
    L = ["/* generated by src/prof/gen_wrappers.py: do not edit */",
         "#ifndef CM_PROF_CALL_IDS_H", "#define CM_PROF_CALL_IDS_H"]
    for f in funcs:
        L.append(f"#define CM_PROF_ID_{f.name} {ids[f.name]}")
    L.append("#endif")
    return "\n".join(L) + "\n"


NAME_IN_DIAG = re.compile(r"\bP?MPI_([A-Z][a-z_0-9]*[a-z0-9_]|[A-Z][a-z]*)\b")


def probe(cc, cflags, src, funcs, extra, incdirs):
    """Names the compiler or linker refused: conflicting/undeclared/undefined."""
    known = {f.name for f in funcs}
    with tempfile.TemporaryDirectory() as td:
        c = os.path.join(td, "w.c")
        with open(c, "w") as fh:
            fh.write(src)
        inc = []
        for d in incdirs:
            inc += ["-I", d]
        cmd = cc.split() + cflags + inc + ["-shared", "-fPIC", "-o", os.path.join(td, "w.so"), c] \
            + extra + ["-lpthread", "-Wl,--no-undefined", "-fmax-errors=0",
                       "-Werror=implicit-function-declaration", "-Werror=incompatible-pointer-types"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return set(), ""
        bad = set()
        for line in r.stderr.splitlines():
            if "error" not in line and "undefined reference" not in line:
                continue
            for m in re.finditer(r"[‘'`]P?MPI_(\w+)[’']", line):
                if m.group(1) in known:
                    bad.add(m.group(1))
        # an error in a signature (a type the host header lacks, such as
        # MPI_Session in an older MPI) names the function on its source line
        lines = src.splitlines()
        for line in r.stderr.splitlines():
            m = re.search(r"w\.c:(\d+):\d+: error", line)
            if m and 0 < int(m.group(1)) <= len(lines):
                for mm in re.finditer(r"\bP?MPI_(\w+)\s*\(", lines[int(m.group(1)) - 1]):
                    if mm.group(1) in known:
                        bad.add(mm.group(1))
        # an error inside a wrapper body names its function in the preceding "In function" line
        cur = None
        for line in r.stderr.splitlines():
            m = re.search(r"In function [‘'`]MPI_(\w+)[’']", line)
            if m:
                cur = m.group(1)
            elif "At top level" in line or re.search(r"In function [‘'`](?!MPI_)", line):
                cur = None
            elif "error" in line and cur in known:
                bad.add(cur)
        # an error in a wrapper's signature (a type the flavour's mpi.h lacks, such
        # as MPI_Session in Open MPI 4) names no function: find the definition
        # the error's line belongs to
        lines = src.splitlines()
        for line in r.stderr.splitlines():
            m = re.match(r".*w\.c:(\d+):\d+: error", line)
            if not m:
                continue
            for k in range(min(int(m.group(1)), len(lines)) - 1, -1, -1):
                d = re.match(r"CM_PROF_EXPORT\b.*?\bP?MPI_(\w+)\s*\(", lines[k])
                if d:
                    if d.group(1) in known:
                        bad.add(d.group(1))
                    break
        return bad, r.stderr


def host_declared(cc, cflags):
    """The MPI_ functions the compiler's mpi.h declares (or defines as macros)."""
    r = subprocess.run(cc.split() + cflags + ["-E", "-dD", "-x", "c", "-"], input="#include <mpi.h>\n",
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"gen_wrappers.py: {cc} cannot preprocess mpi.h:\n{r.stderr[:2000]}")
    return set(re.findall(r"\b(MPI_\w+)\s*\(", r.stdout))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("spec_dir")
    ap.add_argument("out")
    ap.add_argument("--ids")
    ap.add_argument("--probe-cc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("-I", dest="incdirs", action="append", default=[])
    ap.add_argument("--extra", action="append", default=[], help="runtime sources linked in the probe")
    a = ap.parse_args(argv)
    api = spec.load_checked(a.spec_dir, "gen_wrappers.py")
    if api is None:
        sys.exit(1)
    funcs = [Func(fn) for fn in api.functions() if "norecord" not in fn.flags]
    # The tool information interface (MPI_T_*) is not wrapped: it is the
    # tools' own way in, not application traffic, and a host MPI's header
    # may lack its newer types (MPI_T_source_order, event callbacks), which
    # fail the probe in signatures that name no wrapper body.
    skip = {f.name for f in funcs if f.name.startswith("T_")}
    if a.probe_cc:
        declared = host_declared(a.probe_cc, a.cflags.split())
        skip |= {f.name for f in funcs if "MPI_" + f.name not in declared}
    src = generate(funcs, skip)
    if a.probe_cc:
        for _ in range(6):
            bad, err = probe(a.probe_cc, a.cflags.split(), src, funcs, a.extra, a.incdirs)
            bad -= skip
            if not bad:
                if err:
                    sys.exit("gen_wrappers.py: the probe build fails for a reason not tied to one "
                             "function:\n" + err[:4000])
                break
            skip |= bad
            src = generate(funcs, skip)
        print(f"gen_wrappers.py: {a.probe_cc}: wrapping {len(funcs) - len(skip) - len(HANDWRITTEN & {f.name for f in funcs})} "
              f"generated + {len(HANDWRITTEN)} hand-written; skipped {len(skip)} this MPI lacks (listed at the top of {os.path.basename(a.out)})")
    tmp = a.out + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(src)
    os.replace(tmp, a.out)
    if a.ids:
        with open(a.ids + ".tmp", "w") as fh:
            fh.write(gen_ids_header(funcs))
        os.replace(a.ids + ".tmp", a.ids)


if __name__ == "__main__":
    main(sys.argv[1:])
