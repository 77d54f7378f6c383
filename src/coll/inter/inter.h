/*
 * inter.h -- the collectives on an intercommunicator (MPI-4.1 §6.2.2), in
 * corempi only (the host-MPI harness compiles the files directly in src/coll, not this
 * folder).
 *
 * Each front end of coll/api_*.c hands an intercommunicator here first
 * (API_INTER, coll/api.h), before any selection: the algorithm table, the
 * tuning and the shared-memory engine only ever see intracommunicators.
 * These functions check the intercommunicator forms of the arguments
 * (MPI_ROOT / MPI_PROC_NULL / remote-rank roots, counts sized by the remote
 * group) and run point-to-point algorithms: traffic between the groups on
 * the intercommunicator's collective context (remote ranks), traffic within
 * a group through the ordinary collectives on its hidden local
 * communicator (struct cm_comm's local).  Correctness first: linear
 * exchanges between the groups, reduce + swap at the leaders + broadcast
 * for the reductions.  The nonblocking forms run the same code building a
 * schedule (coll/nbc.h) instead (cm_inter_nb_begin/end below).
 *
 * Arguments as in the PMPI_ functions of the same names, call: "MPI_Bcast".
 */
#ifndef CM_COLL_INTER_H
#define CM_COLL_INTER_H

#include <mpi.h>

int cm_inter_barrier(MPI_Comm comm);
int cm_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cm_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cm_inter_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                    int root, MPI_Comm comm);
int cm_inter_gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                     const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_inter_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                     int root, MPI_Comm comm);
int cm_inter_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int cm_inter_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm);
int cm_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm);
int cm_inter_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                       MPI_Comm comm);
int cm_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                        const int *displs, MPI_Datatype rtype, MPI_Comm comm);
int cm_inter_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                      MPI_Comm comm);
int cm_inter_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                       const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm);
int cm_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
                       void *rbuf, const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm);
/* The nonblocking forms: cm_inter_nb_end(comm, request, (cm_inter_nb_begin(
 * comm, "MPI_Ibcast"), cm_inter_bcast(...))) -- the blocking function's
 * body builds a schedule instead of running (coll/inter/util.h), which
 * nb_end starts as *request. */
void cm_inter_nb_begin(MPI_Comm comm, const char *call);
int cm_inter_nb_end(MPI_Comm comm, MPI_Request *request, int rc);
/* The blocking forms (coll/api.h, API_INTER): cm_inter_blocking_end(comm,
 * (cm_inter_blocking_begin(), cm_inter_bcast(...))) -- the body builds the
 * schedule its nonblocking form builds (begun when the body asks for its
 * communicator, cm_ic_get, under the blocking call's name), which
 * blocking_end starts and waits for: its messages carry the call's word and
 * each message's class (coll/nbc.c), so a mismatch is an error there too.
 * A nonblocking front end's own cm_inter_nb_begin cancels the request. */
void cm_inter_blocking_begin(void);
int cm_inter_blocking_end(MPI_Comm comm, int rc);

/* A collective that MPI-4.1 leaves undefined on intercommunicators (Scan,
 * Exscan and their nonblocking forms): MPI_ERR_COMM naming the call. */
int cm_inter_refuse(MPI_Comm comm, const char *call);

#endif
