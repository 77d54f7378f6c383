/*
 * coll_entry.h -- point-to-point for the collectives' algorithms.
 *
 * The public entries (api_send.c, api_recv.c, api_wait.c) record the user's
 * call for crash and deadlock reports, count it, and check every argument a
 * user could get wrong.  An algorithm's messages need none of that: the
 * collective's front end (coll/api_*.c) recorded the call and checked the
 * user's arguments, and the algorithm derives every p2p argument from them.
 * These entries do only what the protocol needs, plus the cheap inline test
 * of the common case (p2p/check.h) whose failure -- MPI_PROC_NULL, or a bad
 * argument after all -- takes the full check, which then names the
 * collective.
 *
 * flags: the collective the messages belong to (a cm_call_id in the low
 * bits, 0 for none) and CM_P2P_BULK.  The call id names the collective in
 * the deadlock watcher's report ("blocked in MPI_Allreduce") and in error
 * messages; with 0 they name the point-to-point call, as the public entries
 * do.  Errors reach the communicator's error handler as from the public
 * entries (a truncation is reported by the receive).
 *
 * Requests are ordinary MPI_Request handles: an algorithm may mix these with
 * the public entries' requests.
 */
#ifndef CM_P2P_COLL_ENTRY_H
#define CM_P2P_COLL_ENTRY_H

#include "mpi.h"

#define CM_P2P_CALL_MASK 0xffffu   /* the collective's cm_call_id */
/* Bulk collective data: nothing reads the received bytes right after (the
 * data-movement collectives, not the reductions).  A rendezvous receive
 * then takes the split copy from COREMPI_COLL_STREAM_MAX on instead of
 * COREMPI_STREAM_MAX (rndv.c says why). */
#define CM_P2P_BULK 0x10000u

int cm_p2p_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, unsigned flags);
int cm_p2p_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status,
                unsigned flags);
int cm_p2p_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status *status, unsigned flags);
int cm_p2p_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request, unsigned flags);
int cm_p2p_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request,
                 unsigned flags);
int cm_p2p_wait(MPI_Request *request, MPI_Status *status, unsigned flags);
int cm_p2p_waitall(int count, MPI_Request requests[], MPI_Status statuses[], unsigned flags);
int cm_p2p_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], unsigned flags);

/* The bodies the public Wait/Waitall/Testall share with these (api_wait.c):
 * arguments already checked; call_id is reported if the rank sleeps, call
 * names the call in error messages. */
int cm_wait_request(MPI_Request *request, MPI_Status *status, unsigned call_id, const char *call);
int cm_waitall_requests(int count, MPI_Request requests[], MPI_Status statuses[], unsigned call_id,
                        const char *call);
int cm_recv_blocking(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Status *status, unsigned call_id, unsigned flags);
int cm_testall_requests(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], const char *call);

#endif
