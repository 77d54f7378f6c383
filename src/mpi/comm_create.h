/* comm_create.h -- what comm_create.c shares with comm_idup.c. */
#ifndef CM_MPI_COMM_CREATE_H
#define CM_MPI_COMM_CREATE_H

#include <stdint.h>
#include "core/comm.h"

/* A duplicate of p on the agreed context ctx (already taken here): the new
 * communicator with p's error handler, topology, attributes (copy callbacks
 * run) and hints (or info's, when info is not MPI_INFO_NULL). */
int cm_comm_dup_finish(struct cm_comm *p, uint16_t ctx, MPI_Info info, MPI_Comm *newcomm, const char *call);
/* Its second half: give the new *newcomm p's topology, attributes and hints
 * (on failure *newcomm is freed and becomes MPI_COMM_NULL). */
int cm_comm_dup_props(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call);

/* Send sbytes to parent rank `to` and receive up to rbytes from parent rank
 * `from` over parent's collective context with an internal (negative) tag;
 * to < 0: receive only, from < 0: send only.  Blocking. */
void cm_comm_exchange(struct cm_comm *parent, const void *sbuf, size_t sbytes, int to, void *rbuf, size_t rbytes,
                      int from, int tag);

/* The intercommunicator forms of the creation calls (mpi/intercomm_ops.c);
 * comm_create.c hands them an intercommunicator parent. */
int cm_inter_dup(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call);
/* What both kinds of Comm_idup keep (comm_idup.c, comm_idup_inter.c), the
 * first member of each one's state so that cm_idup_destroy frees either. */
struct cm_idup_head {
    struct cm_comm *parent;  /* held (refcount) until the request is freed */
    MPI_Comm *newcomm;       /* MPI_COMM_NULL until completion */
    MPI_Info info;           /* a copy, or MPI_INFO_NULL */
    const char *call;
    int tag;                 /* this idup's internal tag */
};
/* Allocate a state of `size` bytes starting with a head for parent p:
 * NULL after reporting the error (*rc). */
void *cm_idup_new(size_t size, struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call, int *rc);
void cm_idup_destroy(void *state);
/* Comm_idup of an intercommunicator (mpi/comm_idup_inter.c): a request whose
 * polls run the agreement. */
int cm_inter_idup(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request, const char *call);
int cm_inter_split(struct cm_comm *p, int color, int key, MPI_Comm *newcomm);
int cm_inter_create(struct cm_comm *p, MPI_Group group, MPI_Comm *newcomm);
int cm_inter_compare(struct cm_comm *a, struct cm_comm *b);

/* A context id free in every member: members[0..n) are parent ranks, me is
 * this process's index in members, tag an internal (negative) tag that no
 * concurrent agreement among the same processes uses. */
int cm_comm_agree_context(struct cm_comm *parent, const int *members, int n, int me, int tag, uint16_t *ctx);
/* The same under MPI_THREAD_MULTIPLE (mpi/context_agree_mt.c). */
int cm_comm_agree_context_mt(struct cm_comm *parent, const int *members, int n, int me, int tag, uint16_t *ctx);

#endif
