/*
 * check.h -- argument checks shared by the point-to-point calls.  The
 * generated front ends of chapters 3 and 4 call them (spec/gen_checks.py);
 * the fast paths (blocks flagged bodycheck) test the common case inline and
 * call cm_p2p_check() only when something looks wrong, so that the error
 * names the exact argument.
 */
#ifndef CM_P2P_CHECK_H
#define CM_P2P_CHECK_H

#include "mpi.h"
#include "core/attr.h"
#include "core/comm.h"
#include "core/datatype.h"

enum cm_peer_role { CM_PEER_DEST, CM_PEER_SOURCE };

/* Full check of a point-to-point call's arguments.  Returns MPI_SUCCESS or the
 * error class (after the communicator's error handler ran). */
int cm_p2p_check(const char *call, const void *buf, int count, MPI_Datatype dt, int peer,
                 enum cm_peer_role role, int tag, MPI_Comm comm);

/* The envelope of a probe (communicator, peer, tag): cm_p2p_check of an
 * empty buffer. */
int cm_p2p_check_envelope(const char *call, int peer, enum cm_peer_role role, int tag, MPI_Comm comm);

/* The common case of a send's or receive's arguments, tested inline: a
 * valid communicator and committed type, a count and buffer that go
 * together, a peer rank of the communicator (a receive: or ANY_SOURCE) and a
 * user tag (a receive: or ANY_TAG).  0 sends the caller to cm_p2p_check,
 * which names the argument -- or accepts MPI_PROC_NULL. */
/* Any int count of t fits 63 bits in bytes, extents and bounds (size and
 * |extent| below 2^31, |lb| below 2^62); a bigger type takes cm_p2p_check,
 * which tests the count exactly (cm_dt_check_bytes). */
static inline int cm_dt_int_counts_fit(const struct cm_datatype *t)
{
    return t->size < ((size_t)1 << 31) && (unsigned long)(t->extent + (1L << 31)) < (1UL << 32) &&
           (unsigned long)(t->lb + (1L << 62)) < (1UL << 63);
}
static inline int cm_send_args_ok(const struct cm_comm *c, const struct cm_datatype *t, const void *buf,
                                  int count, int dest, int tag)
{
    return c && t && t->committed && count >= 0 && (unsigned)dest < (unsigned)c->peer_size &&
           tag >= 0 && (buf || count == 0 || t->size == 0) && cm_dt_int_counts_fit(t);
}
static inline int cm_recv_args_ok(const struct cm_comm *c, const struct cm_datatype *t, const void *buf,
                                  int count, int src, int tag)
{
    return c && t && t->committed && count >= 0 &&
           ((unsigned)src < (unsigned)c->peer_size || src == MPI_ANY_SOURCE) &&
           (tag >= 0 || tag == MPI_ANY_TAG) && (buf || count == 0 || t->size == 0) && cm_dt_int_counts_fit(t);
}

/* The request pointer of a call that takes one by address: not NULL.
 * Inline, as every MPI_Wait and MPI_Test pays for it; the error is not. */
int cm_request_ptr_null(const char *call);
static inline int cm_check_request_ptr(const char *call, const MPI_Request *req)
{
    return __builtin_expect(req != NULL, 1) ? MPI_SUCCESS : cm_request_ptr_null(call);
}

#endif
