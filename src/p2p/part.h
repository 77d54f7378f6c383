/*
 * part.h -- partitioned communication inside p2p: the request state shared by
 * the API (partitioned.c: init, Start, Pready, Parrived, completion) and the
 * matching of the two sides (part_match.c: hello/reply, ids, the pump).
 *
 * The protocol, its tags and why they are safe are in docs/partitioned.md.
 * In short: Psend_init sends a hello (the user's tag, the partitioning) on
 * the communicator's collective context; the receive side pairs hellos with
 * its Precv_inits in MPI order by (source, tag, comm) and answers with a
 * reply naming a receive id (rid) unique in the receiving process.  Data
 * then travels as one message per SEND partition under a tag made of the
 * rid and the partition number; the receive side maps each message to the
 * bytes of its own partitions, whatever their number.
 */
#ifndef CM_P2P_PART_H
#define CM_P2P_PART_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

struct cm_request;

#define CM_PART_MAX 65536          /* partitions per side: the index takes the tag's low 16 bits */
#define CM_PART_RIDS 8192          /* live partitioned receives per process (13 bits of the tag) */
#define CM_PART_SIDS 65536         /* live partitioned sends per process (16 bits of the tag) */

/* Tags on the collective context: bit 30 set, above every collective's. */
#define CM_PART_TAG_HELLO 0x40000000
#define CM_PART_TAG_REPLY(sid) (0x50000000 | (sid))
#define CM_PART_TAG_DATA(rid, i) (0x60000000 | ((rid) << 16) | (i))

/* Why a matched pair cannot move data (reported at every completion). */
enum cm_part_why { CM_PART_OK = 0, CM_PART_SIZE, CM_PART_PEER_FREED, CM_PART_TOO_BIG };

/* Control messages (fixed size, sent as MPI_BYTE). */
struct cm_part_hello {
    int32_t tag, parts, sid, pad;
    uint64_t psize;                /* bytes of one send partition */
};
struct cm_part_reply {
    int32_t rid;
    int32_t parts;
    uint64_t psize;                /* bytes of one receive partition */
    int32_t why;                   /* enum cm_part_why: the receive side's verdict */
    int32_t pad;
};

/* How a receive lays a send partition's message into its buffer. */
enum cm_part_land { CM_LAND_ELEMENTS, CM_LAND_BYTES, CM_LAND_STAGED };

struct cm_part {
    struct cm_request *self;       /* the user's request; NULL once freed (a zombie finishing its control traffic) */
    int send;
    char *buf;
    int partitions, count;         /* this side's */
    MPI_Datatype dt;
    size_t esize;                  /* packed bytes of one element */
    MPI_Aint extent, true_lb;
    size_t psize;                  /* packed bytes of one partition: count * esize */
    size_t stride;                 /* bytes between partitions in memory: count * extent */
    int contig;                    /* the datatype has no holes */
    int peer, tag;
    MPI_Comm comm, cc;             /* the user's communicator and its collective twin */
    struct cm_comm *held;          /* comm, referenced while p lives: a Comm_free waits for a zombie's
                                    * traffic, so its handle and contexts are not reused under it */
    int id;                        /* send: sid; receive: rid (-1: none) */

    /* Matching. */
    int matched;                   /* receive: paired with a hello; send: reply received */
    enum cm_part_why why;
    int peer_parts;                /* the other side's partitioning */
    size_t peer_psize;
    int peer_id;                   /* send: the rid to tag data with; receive: the sender's sid */
    struct cm_part_hello hello;    /* send: the hello it sent */
    struct cm_part_reply reply;    /* send: the reply awaited; receive: the reply it sent */
    MPI_Request ctl_rq;            /* the control isend in flight: send: hello; receive: reply */
    MPI_Request reply_rq;          /* send: the reply irecv until the reply lands */
    struct cm_part *next;          /* in a channel's waiting list or the pump's control list */
    int on_ctl;                    /* on the pump's control list */

    /* A round (Start .. completion). */
    int nmsg;                      /* messages of a round: the send side's partitions (once known) */
    MPI_Request *reqs;             /* per message; MPI_REQUEST_NULL: not out yet or retired */
    unsigned char *ready;          /* send: Pready seen; receive: message landed */
    int ndone;                     /* messages of this round done */
    int *pend, npend;              /* messages of this round in flight (indices), in no order */
    int posted;                    /* receive: this round's receives are posted */
    int *missing;                  /* receive: per own partition, its messages not landed yet */
    enum cm_part_land land;
    char *stage;                   /* CM_LAND_STAGED: the packed bytes, unpacked as messages land */
    /* MPI_THREAD_MULTIPLE: a round's state above (ready, pend, ndone, the
     * match) is changed by Pready in any thread and by the progressing
     * one (match, poll).  Recursive: a Pready's send may progress, and
     * the progress may match this very request. */
    pthread_mutex_t lock;
};

/* part_match.c */
int cm_part_alloc_id(struct cm_part *p);           /* 0, or -1 when the ids are used up */
void cm_part_match_init(struct cm_part *p);        /* after init: hello out, or wait for one */
void cm_part_progress(void);                        /* move every control message that can move */
void cm_part_release(struct cm_part *p);           /* the user freed it: finish control traffic, then free */
void cm_part_free(struct cm_part *p);              /* memory only */
void cm_part_finalize(void);                        /* MPI_Finalize: forget channels and zombies */
/* partitioned.c: called by the matcher */
void cm_part_on_match(struct cm_part *p);          /* both sides' shapes are known now */
int cm_part_total_mismatch(const struct cm_part *p);

#endif
