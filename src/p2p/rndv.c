/*
 * rndv.c -- the receiving side of the rendezvous protocol.
 *
 * Single copy: the receiver reads the sender's buffer with process_vm_readv
 * straight into its own, then sends FIN.  Fallback (COREMPI_SINGLE_COPY=0 or
 * the kernel refuses): the receiver sends CTS and the sender streams the data
 * through the ring in fragments -- the ring is the pair of bounce buffers,
 * and sender and receiver copy concurrently (pipelined).
 */
#include "p2p/p2p.h"
#include "p2p/match.h"
#include "core/state.h"
#include "core/error.h"
#include "core/datatype.h"
#include "shm/segment.h"
#include "core/remote.h"
#include "shm/ring.h"
#include "shm/cma.h"
#include "shm/copy.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

static int read_peer(int src_world, void *dst, uint64_t addr, size_t len)
{
    if (src_world == cm_g.rank) {
        cm_copy(dst, (const void *)(uintptr_t)addr, len);
        return 0;
    }
    pid_t pid = cm_peer_ctl(src_world)->pid;
    size_t done = cm_cma_read(pid, dst, addr, len);
    if (done == 0 && len > 0) {
        if (cm_g.verbose)
            fprintf(stderr, "corempi: rank %d: process_vm_readv from rank %d refused (%s); using the bounce-buffer path\n",
                    cm_g.rank, src_world, strerror(errno));
        cm_g.cma_ok = 0;
        return -1;
    }
    if (done < len)
        cm_fatal("MPI_Recv", "single-copy read from rank %d failed after %zu of %zu bytes: %s", src_world, done,
                 len, strerror(errno));
    return 0;
}

/* Single copy into a non-contiguous receive buffer: the contiguous source is
 * scattered straight into the user's blocks, IOV_MAX pieces per system call. */
#define SCATTER_IOV 1024
static int read_peer_scatter(struct cm_request *r, int src_world, uint64_t addr)
{
    const struct cm_datatype *t = cm_dt_lookup(r->dtype);
    if (src_world == cm_g.rank) {
        cm_dt_unpack((const void *)(uintptr_t)addr, r->expected, r->buf, r->count, t);
        return 0;
    }
    pid_t pid = cm_peer_ctl(src_world)->pid;
    struct iovec iov[SCATTER_IOV];
    size_t left = r->expected, done = 0;
    int n = 0;
    for (int e = 0; e < r->count && left; e++) {
        char *elem = (char *)r->buf + (MPI_Aint)e * t->extent;
        for (size_t rep = 0; rep < t->rep_count && left; rep++) {
            for (size_t b = 0; b < t->nblocks && left; b++) {
                size_t len = t->blocks[b].len < left ? t->blocks[b].len : left;
                iov[n++] = (struct iovec){ elem + (MPI_Aint)rep * t->rep_stride + t->blocks[b].disp, len };
                left -= len;
                if (n == SCATTER_IOV || !left) {
                    size_t batch = 0;
                    for (int i = 0; i < n; i++)
                        batch += iov[i].iov_len;
                    struct iovec remote = { (void *)(uintptr_t)(addr + done), batch };
                    ssize_t got = process_vm_readv(pid, iov, (unsigned long)n, &remote, 1, 0);
                    if (got != (ssize_t)batch) {
                        if (done == 0 && got <= 0) {
                            cm_g.cma_ok = 0;
                            return -1;
                        }
                        cm_fatal("MPI_Recv", "single-copy read from rank %d stopped after %zu bytes: %s",
                                 src_world, done + (got > 0 ? (size_t)got : 0), strerror(errno));
                    }
                    done += batch;
                    n = 0;
                }
            }
        }
    }
    return 0;
}

/* Peers from which a single-copy read has worked: only those get split
 * copies, so a refusal is found on a message that can still fall back. */
static unsigned char *cma_verified;

/* Under MPI_THREAD_MULTIPLE a receive started from an unexpected RTS (its
 * caller, outside the progress lock) and the progress holder both read and
 * set these flags: atomic bytes, the array made once (the loser frees). */
static int cma_verified_of(int src_world)
{
    unsigned char *v = __atomic_load_n(&cma_verified, __ATOMIC_ACQUIRE);
    return v && __atomic_load_n(&v[src_world], __ATOMIC_RELAXED);
}

static void cma_verify(int src_world)
{
    unsigned char *v = __atomic_load_n(&cma_verified, __ATOMIC_ACQUIRE);
    if (!v) {
        unsigned char *n = calloc((size_t)cm_g.size, 1), *none = NULL;
        if (!n)
            return;
        if (__atomic_compare_exchange_n(&cma_verified, &none, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            v = n;
        else {
            free(n);
            v = none;
        }
    }
    __atomic_store_n(&v[src_world], 1, __ATOMIC_RELAXED);
}

/* Messages from this size on are copied by both sides (COREMPI_SPLIT_MIN). */
static size_t split_min(void)
{
    return cm_config_size(COREMPI_SPLIT_MIN, 32768);
}

static int try_split(struct cm_request *r, void *target, int src_world, uint64_t token, uint64_t addr)
{
    if (!target || src_world == cm_g.rank || r->expected < split_min() || !cma_verified_of(src_world))
        return 0;
    /* The receiver takes the first part, the sender writes the rest: both
     * cores copy at once.  Cut on a page so neither side splits a page. */
    size_t h = (r->expected / 2) & ~(size_t)4095;
    if (h == 0)
        return 0;
    struct cm_wcts w = { token, (uintptr_t)r, (uintptr_t)target + h, h, r->expected - h };
    cm_send_ctrl(src_world, CM_MSG_WCTS, &w, sizeof w);
    r->stream_len = r->expected; /* parts not yet in: the sender's */
    r->received = h;
    if (read_peer(src_world, target, addr, h) != 0)
        cm_fatal("MPI_Recv", "single-copy read from rank %d failed after earlier reads worked", src_world);
    r->peer_token = addr; /* kept in case the sender's write is refused */
    cm_send_ctrl(src_world, CM_MSG_FIN, &token, 8);
    return 1;
}

void cm_rndv_write_part(const struct cm_wcts *w, int dst_world)
{
    struct cm_request *s = (struct cm_request *)(uintptr_t)w->sender_token;
    pid_t pid = cm_peer_ctl(dst_world)->pid;
    size_t done = cm_cma_write(pid, w->dst_addr, (const char *)s->data + w->offset, w->len);
    struct cm_wdone d = { w->receiver_token, done == w->len };
    cm_send_ctrl(dst_world, CM_MSG_WDONE, &d, sizeof d);
}

void cm_rndv_part_done(const struct cm_wdone *d, int src_world)
{
    struct cm_request *r = (struct cm_request *)(uintptr_t)d->receiver_token;
    if (!d->ok && read_peer(src_world, (char *)r->target + r->received, r->peer_token + r->received,
                            r->stream_len - r->received) != 0)
        cm_fatal("MPI_Recv", "rank %d could neither write nor be read for a split copy", src_world);
    cm_recv_complete(r);
}

/* A receive of bulk collective data (CM_P2P_BULK, p2p/coll_entry.h: the
 * collectives that only move data, where nothing reads the received bytes
 * right after) takes the split copy instead of the stream from
 * cm_g.coll_stream_max on (COREMPI_COLL_STREAM_MAX).  Two ranks, 1 MiB, bench/coll.c, runs alternated:
 * streamed, bcast/gather/scatter/alltoall took 40/63/59-123/106 us when the
 * two vCPUs shared a cache and 100/130/122/230 when they did not (this VM
 * moves between the two within minutes; cache-line ping-pong 35 vs 160 ns);
 * split, 40/66/66/111 and 42/67/68/115.  Reductions stay streamed: with the
 * split their receive-then-combine took 260-420 us against 170 streamed on
 * the far cores.  Point-to-point keeps stream_max: a ping-pong's buffer was
 * just written by the other side, and there the stream wins at 1 MiB in both
 * cases (23 vs 16 GB/s, 10.7 vs 4.3). */
static size_t stream_max_for(const struct cm_request *r)
{
    size_t m = cm_g.stream_max;
    if (r->bulk && cm_g.coll_stream_max < m)
        m = cm_g.coll_stream_max;
    return m;
}

void cm_rndv_receive_into(struct cm_request *r, void *target, int src_world, uint64_t token,
                          uint64_t addr, size_t len)
{
    r->target = target;
    /* Below stream_max the sender streams fragments through the ring: both
     * copies stay in cache and overlap (fragment k is copied out while k + 1
     * is copied in), which beats one process_vm_readv whose fixed cost
     * (page pinning) dominates at these sizes.  Self-messages read directly.
     * Not in an exchange (a send of ours to src_world in flight): there
     * both cores copy anyway, streaming makes each do two copies per
     * message instead of one, and a 2-rank Sendrecv both ways of 128 KiB
     * to 1 MiB took 1.9-2.6x the single copy's time (docs/bench.md). */
    if (len < stream_max_for(r) && src_world != cm_g.rank && !cm_rndv_out_to(src_world))
        addr = 0;
    if (addr && cm_g.cma_ok && try_split(r, target, src_world, token, addr))
        return;
    if (addr && (cm_g.cma_ok || src_world == cm_g.rank) &&
        (r->expected == 0 ||
         (target ? read_peer(src_world, target, addr, r->expected) : read_peer_scatter(r, src_world, addr)) == 0)) {
        if (addr && src_world != cm_g.rank && r->expected) {
            cma_verify(src_world);
        }
        cm_send_ctrl(src_world, CM_MSG_FIN, &token, 8);
        cm_recv_complete(r);
        return;
    }
    r->stream_len = len;
    r->received = 0;
    cm_p2p_owe(r);      /* the sender will wait for room in our ring */
    struct cm_cts cts = { token, (uintptr_t)r };
    cm_send_ctrl(src_world, CM_MSG_CTS, &cts, sizeof cts);
}

void cm_rndv_data(const void *payload, uint32_t len)
{
    uint64_t token;
    memcpy(&token, payload, 8);
    struct cm_request *r = (struct cm_request *)(uintptr_t)token;
    size_t n = len - 8;
    if (r->received < r->expected) {
        size_t keep = r->expected - r->received;
        if (keep > n)
            keep = n;
        if (r->target)
            cm_copy((char *)r->target + r->received, (const char *)payload + 8, keep);
        else /* non-contiguous receive buffer: unpack this piece in place */
            cm_dt_unpack_range((const char *)payload + 8, keep, r->buf, r->count, cm_dt_lookup(r->dtype),
                               r->received);
    }
    r->received += n;
    if (r->received >= r->stream_len)
        cm_recv_complete(r);
}
