/*
 * core/state.h for the wing (docs/wing.md): the few process-wide facts the
 * engine reads, filled in by wing/init.c from the host MPI.
 */
#ifndef CM_CORE_STATE_H
#define CM_CORE_STATE_H

#include <stddef.h>
#include <mpi.h>
#include "shm/segment.h"
#include "core/config.h"
#include "core/thread.h"
#include "core/error.h"

struct cm_state {
    int oversubscribed;            /* more ranks on the node than cores */
    int coll_check;                /* never: the host does no argument check */
    int world_size;                /* ranks on this node (view.c's non-temporal threshold) */
    int cma_ok;                    /* 0: the wing never reads another process's memory */
    unsigned verbose;
    void *seg;                     /* NULL: no corempi segment */
    struct cm_seg_header *hdr;     /* NULL likewise */
    struct cm_rank_ctl *self_ctl;  /* NULL: no mpirun deadlock watch */
};
extern struct cm_state cm_g;

#define CM_VERBOSE_P2P  0x1u
#define CM_VERBOSE_COLL 0x2u
#define CM_VERBOSE_INIT 0x4u

#endif
