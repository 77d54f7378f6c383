#!/usr/bin/env python3
"""prof_gen_facts: coreprof's generated wrappers record what the spec says.

usage: gen_facts.py SPEC_DIR WRAPPERS.c (build/gen/prof/wrappers_corempi.c)

Checks that every function of spec/*.api that records a call (not the
'norecord' old names, not MPI_T_*, not the five written by hand in
prof_env.c/prof_pcontrol.c) has a wrapper, and a few facts the generator
reads from the spec, one per kind of fact, in the generated C.
"""
import os
import re
import sys

HANDWRITTEN = {'MPI_Init', 'MPI_Init_thread', 'MPI_Finalize', 'MPI_Abort', 'MPI_Pcontrol'}

# (function, a line its wrapper must contain, why)
FACTS = [
    ('MPI_Send', 'cm_prof_set_peer(cm_e_, cm_c_, dest, CPT_F_SEND);', 'a rank with its tag: the destination'),
    ('MPI_Recv', 'cm_prof_set_peer(cm_e_, cm_c_, cm_src_, CPT_F_RECV);', 'MPI_ANY_SOURCE: a source, the matched one'),
    ('MPI_Precv_init', 'cm_prof_set_peer(cm_e_, cm_c_, dest, CPT_F_RECV);', 'its rank fills the OUT buffer: a source'),
    ('MPI_Psend_init', 'cm_prof_set_peer(cm_e_, cm_c_, dest, CPT_F_SEND);', 'its rank reads the IN buffer'),
    ('MPI_Bcast', 'cm_prof_set_peer(cm_e_, cm_c_, root, CPT_F_ROOT);', 'a collective\'s only rank is its root'),
    ('MPI_Bcast', 'cm_e_->bytes = cm_prof_bytes(count, datatype);', 'buf(count, datatype)'),
    ('MPI_Ibcast', 'CPT_F_COLLECTIVE | CPT_F_NONBLOCKING', 'a nonblocking collective'),
    ('MPI_Allreduce_c', '(CPT_F_COLLECTIVE) |', 'a _c collective'),
    ('MPI_Allreduce_init', '(CPT_F_NONBLOCKING | CPT_F_PERSISTENT_INIT) |', 'persistent: the Start records it'),
    ('MPI_Alltoallv', 'cm_prof_bytes((sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts)[cm_i_], '
                      '(sendbuf == MPI_IN_PLACE ? recvtype : sendtype))', 'per-peer counts, in place'),
    ('MPI_Reduce_scatter', 'cm_prof_mean_bytes((cm_c_ ? cm_c_->size : 0), cm_i_, '
                           'cm_prof_bytes(recvcounts[cm_i_], datatype))', 'buf(sum(recvcounts), ...)'),
    ('MPI_Neighbor_alltoallv', 'cm_prof_peers(cm_c_, comm, 1)', 'counts by outdegree(comm): neighbours'),
    ('MPI_Sendrecv', 'cm_e2_->tag = recvtag;', 'the receive half: the tag after the source'),
    ('MPI_Isend', 'cm_e_->request = cm_prof_req_add(*request, cm_e_, 0);', 'an OUT request'),
    ('MPI_Mrecv', 'cm_prof_set_peer(cm_e_, cm_prof_comm_unknown(), status->MPI_SOURCE, CPT_F_RECV);',
     'a Message: the source from the status'),
    ('MPI_Intercomm_merge', 'cm_prof_comm(intercomm, cm_rc_);', 'the first Comm by value'),
    ('MPI_Waitany', 'cm_prof_completed(', 'a completion'),
]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    sys.path.insert(0, argv[0])
    import spec
    api = spec.load(argv[0])
    text = open(argv[1]).read()
    bodies = {m.group(1): m.group(2) for m in re.finditer(
        r'^CM_PROF_EXPORT [^\n]*?\b(MPI_\w+)\((.*?)^}', text, re.S | re.M)}
    fails = []
    want = [f.name for f in api.functions() if 'norecord' not in f.flags
            and not f.name.startswith('MPI_T_') and f.name not in HANDWRITTEN]
    for n in want:
        if n not in bodies:
            fails.append('%s: in the spec, no wrapper' % n)
    for n in sorted(set(bodies) - set(want)):
        fails.append('%s: a wrapper, but not a recorded function of the spec' % n)
    for n, line, why in FACTS:
        if line not in bodies.get(n, ''):
            fails.append('%s: no "%s" (%s)' % (n, line, why))
    for f in fails:
        print('FAIL: ' + f)
    print('%s: %d wrappers, %d facts checked, %d failure(s)' % (
        os.path.basename(argv[1]), len(bodies), len(FACTS), len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
