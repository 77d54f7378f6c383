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
#include "core/request.h"

#define CM_P2P_CALL_MASK 0xffffu   /* the collective's cm_call_id */
/* Bulk collective data: nothing reads the received bytes right after (the
 * data-movement collectives, not the reductions).  A rendezvous receive
 * then takes the split copy from COREMPI_COLL_STREAM_MAX on instead of
 * COREMPI_STREAM_MAX (rndv.c says why). */
#define CM_P2P_BULK 0x10000u

/* ---- the argument word on a blocking collective's messages ----
 * (docs/collectives.md, "Mismatched arguments"; coll/p2p.h cm_coll_tag.)
 * The algorithms' tags are small (coll/coll.h: below 2^13).  A blocking
 * collective's send and receive carry the low CM_P2P_TAG_WORD_BITS of the
 * call's argument word above them, so the tag on the wire is
 * base | word << CM_P2P_TAG_BASE_BITS, below 2^30.  Matching (match.c,
 * fits) lets a receive whose tag carries a word (a word field != 0, tag
 * below 2^30) on a collective context (odd) match a message with the same
 * base and any word: so a sender that disagrees is matched, not waited for
 * forever.  Nothing else uses such tags there: partitioned tags are 2^30 and
 * up, the intercommunicator and dynamic-process ones negative; the
 * nonblocking schedules (coll/nbc.c) carry their own call's word on bases
 * from CM_P2P_TAG_NBC_FIRST.  The receive then compares the two words
 * and its size (cm_p2p_coll_received). */
/* 13 + 17: the word's collective, op and root fields (bits 0-16: the
 * signature class or the root's low 8 bits) ride whole, so every class and
 * every root below 256 is compared exactly; the bytes field (bits 17-31) is
 * the message's size, which the receive compares itself.  The bases fit 13
 * bits: the blocking algorithms' below 32, the schedules' below 1024 +
 * CM_NBC_TAGS (coll/coll.h). */
#define CM_P2P_TAG_BASE_BITS 13
#define CM_P2P_TAG_WORD_BITS 17
#define CM_P2P_TAG_BASE_MASK ((1u << CM_P2P_TAG_BASE_BITS) - 1)
#define CM_P2P_TAG_LIMIT (1u << (CM_P2P_TAG_BASE_BITS + CM_P2P_TAG_WORD_BITS))

/* Set by the collective layer (coll/mismatch.c): a blocking collective's
 * receive from comm rank source got a message whose tag (their_tag) or size
 * (got bytes) differs from what it posted (the call's word, posted bytes).  It
 * records the mismatch for the front end to raise. */
extern void (*cm_p2p_coll_word_differs)(int source, int their_tag, size_t posted, size_t got);

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
/* A blocking collective's receive r is complete: compare its message's
 * word and size with what it posted (above); on a difference tell the
 * collective layer and clear a truncation (the receive then succeeds with
 * what fit, so the algorithm goes on and its peers are not left waiting;
 * the front end raises the mismatch). */
void cm_p2p_coll_received(struct cm_request *r);
/* Its inline front: the common case (the tag and size it posted) costs two
 * comparisons. */
static inline void cm_p2p_coll_check(struct cm_request *r)
{
    if (__builtin_expect(r->status.MPI_TAG != r->tag || r->msg_len != r->bytes, 0))
        cm_p2p_coll_received(r);
}
int cm_testall_requests(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], const char *call);

/* A nonblocking schedule's round (coll/nbc.c), whose tags carry the call's
 * word from base CM_P2P_TAG_NBC_FIRST on: cm_p2p_testall, and once every
 * request is complete, before they are freed, got[i] tells what receive i
 * got (recv 0 for a send).  A truncation is cleared: the schedule compares
 * the sizes itself and reports at its own request's completion, so the
 * round goes on with what fit and its peers are not left waiting.  The
 * blocking collectives' comparison (cm_p2p_coll_received) leaves these
 * receives alone: a schedule may progress inside a blocking call. */
#define CM_P2P_TAG_NBC_FIRST 1024   /* coll/coll.h: CM_TAG_NBC_BASE */
struct cm_p2p_got {
    int recv, tag;          /* the message's tag */
    size_t posted, got;     /* bytes */
};
int cm_p2p_testall_got(int count, MPI_Request requests[], int *flag, struct cm_p2p_got got[], unsigned flags);

#endif
