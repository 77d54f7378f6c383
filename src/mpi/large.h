/*
 * large.h -- what the large-count ("_c") bindings share (src/mpi/large*.c).
 *
 * A _c call whose counts fit in an int calls its int twin unchanged.  A
 * single count above INT_MAX becomes ONE element of a temporary contiguous
 * type of that many elements (MPI_Type_contiguous_c counts in size_t), so the
 * twin moves the same bytes; the engine below counts bytes in size_t end to
 * end.  docs/large_counts.md argues the choice and lists what still stops
 * at INT_MAX (an error naming the call and the argument, never a wrong
 * result).
 */
#ifndef CM_MPI_LARGE_H
#define CM_MPI_LARGE_H

#include "mpi.h"

/* A (count, type) pair resolved for an int binding.  Invariant: temp is 1
 * exactly when t is a committed temporary the caller must release with
 * cm_lc_free once the twin returned, nonblocking or not: whatever still runs
 * (a pending request, a nonblocking schedule, a persistent plan) holds its
 * own reference on it. */
struct cm_lc {
    int n;
    MPI_Datatype t;
    int temp;
};

/* Resolve count elements of type for call (argument arg).  A negative count
 * is MPI_ERR_COUNT on comm's handler, naming call and arg. */
int cm_lc_one(MPI_Comm comm, const char *call, const char *arg, MPI_Count count, MPI_Datatype type,
              struct cm_lc *out);
/* The same when the argument is not significant here (MPI_IN_PLACE, a
 * non-root's side of a rooted collective): no check, count 0. */
void cm_lc_skip(MPI_Datatype type, struct cm_lc *out);
void cm_lc_free(struct cm_lc *x);
/* buf advanced by off bytes; MPI_IN_PLACE stays itself.  Integer
 * arithmetic: buf may be MPI_BOTTOM (NULL) with absolute displacements. */
void *cm_lc_at(const void *buf, MPI_Aint off);

/* Blocking element-wise reductions in pieces of at most CM_LC_PIECE
 * elements: every rank has the same count, so every rank cuts the same
 * pieces and the calls match. */
#define CM_LC_PIECE ((MPI_Count)1 << 30)
struct cm_lc_pieces {
    MPI_Count left;     /* elements not yet done */
    MPI_Aint done;      /* bytes of the done elements (extent times count) */
    MPI_Aint extent;
    int n;              /* elements of the current piece */
};
int cm_lc_pieces_begin(MPI_Comm comm, const char *call, MPI_Count count, MPI_Datatype type,
                       struct cm_lc_pieces *p);
int cm_lc_pieces_next(struct cm_lc_pieces *p);

/* Count arrays: n entries of c (n <= 0 or c NULL: *out NULL) as ints, in
 * memory the caller frees.  An entry below 0 or above INT_MAX is
 * MPI_ERR_COUNT naming arg[i]. */
int cm_lc_ints(MPI_Comm comm, const char *call, const char *arg, const MPI_Count *c, int n, int **out);
/* Displacement arrays (MPI_Aint) likewise; any int value is fine. */
int cm_lc_displs(MPI_Comm comm, const char *call, const char *arg, const MPI_Aint *d, int n, int **out);

/* How many entries the arrays of comm's collectives hold: the peers (the
 * remote group of an intercommunicator), the local group, a neighbourhood
 * collective's in- and out-degree, and the peers when this rank is the
 * root of a rooted collective (else 0: the arrays are not read).  -1 for
 * an invalid communicator (the int twin reports it). */
int cm_lc_npeers(MPI_Comm comm);
int cm_lc_nlocal(MPI_Comm comm);
int cm_lc_nin(MPI_Comm comm);
int cm_lc_nout(MPI_Comm comm);
int cm_lc_nroot(MPI_Comm comm, int root);
/* 1 when this rank's contribution to a rooted collective is read: every
 * rank of an intracommunicator, the non-root group of an intercommunicator. */
int cm_lc_leaf(MPI_Comm comm, int root);

#endif
