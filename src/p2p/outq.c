/* outq.c -- per-destination FIFOs of sends waiting for room (see outq.h). */
#include "p2p/outq.h"
#include "p2p/p2p.h"
#include "core/error.h"
#include "core/state.h"
#include "shm/ring.h"
#include "shm/copy.h"
#include "p2p/mt.h"
#include "shm/fault.h"

#include <stdlib.h>
#include <string.h>

enum item_type { ITEM_SEND, ITEM_CTRL, ITEM_STREAM };

struct item {
    struct item *next;
    enum item_type type;
    struct cm_request *req;
    uint8_t kind;
    uint32_t len;
    /* control payloads: 48 bytes, or more for active messages (item_new
     * allocates what the item needs) */
    unsigned char payload[];
};

struct queue {
    struct item *head, *tail;
};

static struct queue *queues;  /* [world size] */
static int *active;           /* destinations with a non-empty queue */
int cm_outq_nactive;           /* entries of active[] in use */
/* MPI_THREAD_MULTIPLE: queues[dst] is under tx[dst] (p2p/mt.h), active[]
 * under active_lock, taken after tx[dst]. */
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
extern struct cm_ring_tx *cm_tx;

void cm_outq_init(int nranks)
{
    queues = calloc((size_t)nranks, sizeof *queues);
    active = calloc((size_t)nranks, sizeof *active);
    if (!queues || !active)
        cm_fatal("MPI_Init", "out of memory");
}

void cm_outq_finalize(void)
{
    free(queues);
    free(active);
    queues = NULL;
    active = NULL;
    cm_outq_nactive = 0;
}

int cm_outq_empty(int dst) { return queues[dst].head == NULL; }

static void push(int dst, struct item *it)
{
    struct queue *q = &queues[dst];
    it->next = NULL;
    if (q->tail) {
        q->tail->next = it;
    } else {
        q->head = it;
        cm_mt_lock(&active_lock);
        int n = cm_outq_nactive;
        active[n] = dst;
        CM_FAULT(mt_outq_active);   /* another destination must not take the same entry */
        __atomic_store_n(&cm_outq_nactive, n + 1, __ATOMIC_RELAXED);
        cm_mt_unlock(&active_lock);
    }
    q->tail = it;
}

static struct item *item_new(enum item_type type, size_t payload)
{
    struct item *it = calloc(1, sizeof *it + (payload < 48 ? 48 : payload));
    if (!it)
        cm_fatal("send", "out of memory");
    it->type = type;
    return it;
}

void cm_outq_push_send(int dst, struct cm_request *r)
{
    struct item *it = item_new(ITEM_SEND, 0);
    it->req = r;
    push(dst, it);
}

void cm_outq_push_ctrl(int dst, uint8_t kind, const void *payload, uint32_t len)
{
    struct item *it = item_new(ITEM_CTRL, len);
    it->kind = kind;
    it->len = len;
    cm_copy(it->payload, payload, len);
    push(dst, it);
}

void cm_outq_push_stream(int dst, struct cm_request *r)
{
    struct item *it = item_new(ITEM_STREAM, 0);
    it->req = r;
    push(dst, it);
}

static int write_item(int dst, struct item *it)
{
    switch (it->type) {
    case ITEM_SEND: return cm_write_first(it->req);
    case ITEM_CTRL: return cm_write_ctrl(dst, it->kind, it->payload, it->len);
    case ITEM_STREAM: return cm_write_stream(it->req);
    }
    return 0;
}

/* Write what fits of dst's queue; 1 when it is empty now.  Holds tx[dst]
 * under MPI_THREAD_MULTIPLE. */
static int drain_one(int dst, int *done)
{
    struct queue *q = &queues[dst];
    while (q->head && write_item(dst, q->head)) {
        struct item *it = q->head;
        q->head = it->next;
        free(it);
        (*done)++;
    }
    if (q->head)
        return 0;
    q->tail = NULL;
    return 1;
}

/* MPI_THREAD_MULTIPLE (only the progress holder drains): each destination
 * under its lock, taken off active[] under active_lock while still held, so
 * a push that finds the queue empty adds it again after. */
static __attribute__((noinline)) int drain_mt(void)
{
    int done = 0;
    pthread_mutex_lock(&active_lock);
    int n = cm_outq_nactive;
    int *dsts = n ? malloc((size_t)n * sizeof *dsts) : NULL;
    if (n && !dsts)
        cm_fatal("progress", "out of memory");
    if (n)
        memcpy(dsts, active, (size_t)n * sizeof *dsts);
    pthread_mutex_unlock(&active_lock);
    for (int k = 0; k < n; k++) {
        int dst = dsts[k];
        pthread_mutex_lock(&cm_tx_locks[dst]);
        if (drain_one(dst, &done)) {
            pthread_mutex_lock(&active_lock);
            for (int i = 0; i < cm_outq_nactive; i++) {
                if (active[i] == dst) {
                    active[i] = active[cm_outq_nactive - 1];
                    __atomic_store_n(&cm_outq_nactive, cm_outq_nactive - 1, __ATOMIC_RELAXED);
                    break;
                }
            }
            pthread_mutex_unlock(&active_lock);
        }
        pthread_mutex_unlock(&cm_tx_locks[dst]);
    }
    free(dsts);
    return done;
}

int cm_outq_drain(void)
{
    if (__builtin_expect(cm_mt, 0))
        return drain_mt();
    int done = 0;
    for (int i = 0; i < cm_outq_nactive;) {
        int dst = active[i];
        struct queue *q = &queues[dst];
        while (q->head && write_item(dst, q->head)) {
            struct item *it = q->head;
            q->head = it->next;
            free(it);
            done++;
        }
        if (!q->head) {
            q->tail = NULL;
            active[i] = active[--cm_outq_nactive];
        } else {
            i++;
        }
    }
    return done;
}

int cm_outq_room(void)
{
    if (cm_mt)
        return cm_outq_active();   /* a sleep's re-check: the progress holder will look */
    for (int i = 0; i < cm_outq_nactive; i++) {
        struct cm_ring_tx *tx = &cm_tx[active[i]];
        uint64_t rpos = atomic_load_explicit(&tx->v.ctl->rpos, memory_order_acquire);
        if (rpos != tx->rpos_cache)
            return 1;
    }
    return 0;
}
