/*
 * twophase.c -- two-phase collective I/O for the ranks of one node
 * (docs/io.md, "Collective buffering").
 *
 * The file range the group touches is cut into one domain per aggregator
 * (hints.c chose them from the machine), aligned to striping_unit or to
 * pages; each domain is moved in rounds of cb_buffer_size bytes through
 * the aggregator's buffer, which lives in a shared-memory window of the
 * file's group: the ranks copy their pieces straight into (write) or out
 * of (read) it, and only the aggregator calls pwrite/pread, one call per
 * round over the span the ranks touched.  No message carries data.
 *
 * One round, every aggregator at once (a barrier between steps):
 *   A  each rank marks the span of its pieces (atomic min/max) and, for a
 *      write, the bytes it covers in the aggregator's bitmap;
 *   B  the aggregator reads the span when a read needs it, or when a
 *      write leaves holes in it (unless the file is write-only: then D
 *      writes the marked runs one by one) (read-modify-write: no other rank of the
 *      group is outside this collective, and ranks of other groups see
 *      the file consistently only after sync, MPI-4.1 14.6.1);
 *   C  each rank copies its pieces in or out;
 *   D  the aggregator writes the span (write), clears the marks.
 * A and D use the header and bitmap of the round's parity, so that D of
 * round r needs no barrier before A of round r+1.  The call ends with an
 * all-reduce of the error class, which also makes every write visible
 * to every rank before any returns.
 *
 * The view maps the data stream to the file monotonically (view.c), so
 * a rank's pieces in one window are one range of its stream: a buffer
 * that is not contiguous is packed or unpacked once per window.
 */
#include "io/io.h"
#include "core/error.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* romio_cb_* automatic: the mean run below which two-phase may pay when
 * the ranks interleave, and the group size from which it does for reads
 * that would be sieved (docs/io.md has the measurements). */
#define AUTO_RUN ((MPI_Offset)16 << 10)
#define AUTO_READ_RANKS 4

struct hdr {                    /* one per parity, in the aggregator's part */
    _Alignas(64) int64_t lo, hi; /* span of the round's pieces */
    int64_t err;                /* errno of the aggregator's I/O */
};

struct cm_io_cb {
    int naggs;
    MPI_Offset bsize;           /* buffer bytes per aggregator */
    struct agg {
        struct hdr *h;          /* [2] */
        unsigned char *bm[2];   /* a bit per buffer byte */
        char *buf;
    } a[];
};

static size_t bm_bytes(MPI_Offset bsize)
{
    return ((size_t)bsize / 8 + 64) & ~(size_t)63;
}

void cm_io_twophase_free(struct cm_file *f)
{
    if (f->cb)
        PMPI_Win_free(&f->cbwin);
    free(f->cb);
    f->cb = NULL;
}

/* The segment for the hints in effect and a domain of dom bytes
 * (collective, with the same dom everywhere).  Its buffers hold
 * min(cb_buffer_size, dom) rounded up to 64 KiB: a small collective
 * neither maps nor clears a full-size segment, whose first touch is
 * costly (docs/io.md); kept while it is large enough and the hints
 * stay the same. */
static int segment(struct cm_file *f, MPI_Offset dom)
{
    const struct cm_io_hints *h = &f->hints;
    MPI_Offset want = dom < h->cb_buffer_size ? (dom + 0xffff) & ~(MPI_Offset)0xffff : h->cb_buffer_size;
    want = want < h->cb_buffer_size ? want : h->cb_buffer_size;
    if (f->cb && f->cb->naggs == h->naggs && f->cb->bsize >= want && f->cb->bsize <= h->cb_buffer_size)
        return MPI_SUCCESS;
    cm_io_twophase_free(f);
    size_t part = 2 * sizeof(struct hdr) + 2 * bm_bytes(want) + (size_t)want;
    int me = 0;
    for (int i = 0; i < h->naggs; i++)
        me |= h->aggs[i] == f->rank;
    void *base;
    struct cm_io_cb *cb = calloc(1, sizeof *cb + (size_t)h->naggs * sizeof cb->a[0]);
    if (!cb)
        return MPI_ERR_NO_MEM;
    /* Each part on pages of its own: the headers' atomics stay aligned
     * whatever cb_buffer_size is. */
    MPI_Info noncontig;
    PMPI_Info_create(&noncontig);
    PMPI_Info_set(noncontig, "alloc_shared_noncontig", "true");
    int rc = PMPI_Win_allocate_shared(me ? (MPI_Aint)part : 0, 64, noncontig, f->comm, &base, &f->cbwin);
    PMPI_Info_free(&noncontig);
    if (rc) {
        free(cb);
        return rc;
    }
    if (me) {
        memset(base, 0, 2 * sizeof(struct hdr) + 2 * bm_bytes(want));
        struct hdr *hd = base;
        hd[0].lo = hd[1].lo = INT64_MAX;
        hd[0].hi = hd[1].hi = -1;
    }
    cb->naggs = h->naggs;
    cb->bsize = want;
    for (int i = 0; i < h->naggs; i++) {
        MPI_Aint sz;
        int unit;
        char *p;
        PMPI_Win_shared_query(f->cbwin, h->aggs[i], &sz, &unit, &p);
        cb->a[i].h = (struct hdr *)p;
        cb->a[i].bm[0] = (unsigned char *)p + 2 * sizeof(struct hdr);
        cb->a[i].bm[1] = cb->a[i].bm[0] + bm_bytes(want);
        cb->a[i].buf = (char *)(cb->a[i].bm[1] + bm_bytes(want));
    }
    f->cb = cb;
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

/* ---- a rank's side: its runs through the view --------------------------- */

/* The run at stream byte v of a stream of `total` bytes, cut at file
 * offset lim: its offset, and its length (0: none left before lim). */
static MPI_Offset run_at(const struct cm_file *f, MPI_Offset v, MPI_Offset total, MPI_Offset lim, MPI_Offset *len)
{
    MPI_Offset avail, off = cm_io_view_map(f, v, &avail);
    MPI_Offset n = avail < total - v ? avail : total - v;
    if (v >= total || off >= lim)
        n = 0;
    else if (n > lim - off)
        n = lim - off;
    *len = n;
    return off;
}

/* The extent, runs (merged) and bytes (those before eof) of a stream. */
struct extent {
    MPI_Offset lo, hi, runs, bytes;
};

static struct extent walk(const struct cm_file *f, MPI_Offset v0, MPI_Offset total, MPI_Offset eof)
{
    struct extent e = { INT64_MAX, -1, 0, 0 };
    MPI_Offset v = v0, end = v0 + total;
    while (v < end) {
        MPI_Offset avail, off = cm_io_view_map(f, v, &avail);
        MPI_Offset n = avail < end - v ? avail : end - v;
        if (off >= eof)
            break;
        int cut = off + n > eof;     /* a read stops at the end of the file */
        if (cut)
            n = eof - off;
        e.runs += off != e.hi;
        e.lo = off < e.lo ? off : e.lo;
        e.hi = off + n;
        v += n;
        if (cut)
            break;
    }
    e.bytes = v - v0;
    return e;
}

/* The first stream byte at or after v whose file offset is >= at. */
static MPI_Offset skip_to(const struct cm_file *f, MPI_Offset v, MPI_Offset end, MPI_Offset at)
{
    MPI_Offset len;
    while (v < end) {
        MPI_Offset off = run_at(f, v, end, INT64_MAX, &len);
        if (off + len > at)
            return off >= at ? v : v + (at - off);
        v += len;
    }
    return end;
}

/* The stream range [*v, ve) of a rank's pieces in window [w0, w1). */
static MPI_Offset window_end(const struct cm_file *f, MPI_Offset v, MPI_Offset end, MPI_Offset w1)
{
    return skip_to(f, v, end, w1);
}

static void mark(unsigned char *bm, MPI_Offset from, MPI_Offset n)
{
    while (n && (from & 7)) {
        __atomic_fetch_or(&bm[from >> 3], (unsigned char)(1u << (from & 7)), __ATOMIC_RELAXED);
        from++, n--;
    }
    /* Whole bytes: another rank may mark the same ones (overlapping
     * writes), and both store 0xff. */
    if (n >= 8) {
        memset(bm + (from >> 3), 0xff, (size_t)(n >> 3));
        from += n & ~(MPI_Offset)7;
        n &= 7;
    }
    for (; n; from++, n--)
        __atomic_fetch_or(&bm[from >> 3], (unsigned char)(1u << (from & 7)), __ATOMIC_RELAXED);
}

static int covered(const unsigned char *bm, MPI_Offset from, MPI_Offset to)
{
    for (; from < to && (from & 7); from++)
        if (!(bm[from >> 3] >> (from & 7) & 1))
            return 0;
    for (; from + 8 <= to; from += 8)
        if (bm[from >> 3] != 0xff)
            return 0;
    for (; from < to; from++)
        if (!(bm[from >> 3] >> (from & 7) & 1))
            return 0;
    return 1;
}

/* ---- the call ----------------------------------------------------------- */

struct plan {
    MPI_Offset base, dom, glo, ghi, rounds;
};

static void window(const struct cm_file *f, const struct plan *p, int a, MPI_Offset r, MPI_Offset *w0,
                   MPI_Offset *w1)
{
    MPI_Offset d0 = p->base + a * p->dom, d1 = d0 + p->dom;
    MPI_Offset s = d0 + r * f->cb->bsize, e = s + f->cb->bsize;
    *w0 = s > p->glo ? s : p->glo;
    e = e < d1 ? e : d1;
    *w1 = e < p->ghi ? e : p->ghi;
}

static int decide(const struct cm_file *f, int write, const long long (*all)[5], struct plan *p)
{
    int mode = write ? f->hints.cb_write : f->hints.cb_read;
    /* The aggregators move file bytes as they are: a representation that
     * converts (external32, a user one) takes the independent path, which
     * converts each rank's own data. */
    if (mode == CM_IO_DISABLE || f->atomic || f->ext32 || f->urep)
        return 0;
    MPI_Offset bytes = 0, runs = 0, lo = INT64_MAX, hi = -1;
    int overlap = 0;
    for (int r = 0; r < f->size; r++) {
        if (all[r][0])
            return 0;
        if (!all[r][3])
            continue;
        bytes += all[r][3];
        runs += all[r][4];
        for (int q = 0; q < r; q++)
            overlap |= all[q][3] && all[q][1] < all[r][2] && all[r][1] < all[q][2];
        lo = all[r][1] < lo ? all[r][1] : lo;
        hi = all[r][2] > hi ? all[r][2] : hi;
    }
    /* Automatic: interleaved short runs, and independent access would
     * not be sieved, or it is a read of enough ranks. */
    int sieved = (write ? f->hints.ds_write : f->hints.ds_read) != CM_IO_DISABLE;
    if (!bytes || (mode == CM_IO_AUTO && (!overlap || bytes / runs >= AUTO_RUN ||
                                          (sieved && (write || f->size < AUTO_READ_RANKS)))))
        return 0;
    MPI_Offset unit = f->hints.striping_unit ? f->hints.striping_unit : 4096;
    int n = f->hints.naggs;
    p->glo = lo;
    p->ghi = hi;
    p->base = lo - lo % unit;
    p->dom = (hi - p->base + n - 1) / n;
    p->dom += (unit - p->dom % unit) % unit;
    return 1;
}

/* A full pread/pwrite of n bytes at off, or an errno; a read past the
 * end of the file fills zeros. */
static int io_full(int fd, int write, char *mem, MPI_Offset n, MPI_Offset off)
{
    while (n > 0) {
        ssize_t r = write ? pwrite(fd, mem, (size_t)n, off) : pread(fd, mem, (size_t)n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        if (r == 0) {
            memset(mem, 0, (size_t)n);
            return 0;
        }
        mem += r, off += r, n -= r;
    }
    return 0;
}

/* The rank's buffer for stream range [v, v + n): the user's memory when
 * contiguous, else stage (packed first for a write). */
struct side {
    const struct cm_datatype *t;
    char *buf;
    MPI_Count count;
    MPI_Offset v0;              /* the stream byte of buf's first byte */
    char *stage;
};

static char *mem_of(struct side *s, MPI_Offset v)
{
    return s->stage ? s->stage : s->buf + s->t->true_lb + (v - s->v0);
}

/* Step A or C of one window for this rank: copy: 0 marks, 1 copies. */
static void pieces(struct cm_file *f, struct side *s, int write, int copy, int par, int a, MPI_Offset w0,
                   MPI_Offset w1, MPI_Offset *v, MPI_Offset end)
{
    struct agg *g = &f->cb->a[a];
    MPI_Offset ve = window_end(f, *v, end, w1), len, lo = INT64_MAX, hi = -1;
    if (ve <= *v)
        return;
    if (copy && write && s->stage)
        cm_dt_pack_range(s->buf, (int)s->count, s->t, (size_t)(*v - s->v0), s->stage, (size_t)(ve - *v));
    char *mem = mem_of(s, *v);
    for (MPI_Offset u = *v; u < ve; u += len) {
        MPI_Offset off = run_at(f, u, ve, w1, &len);
        if (!len)
            break;
        char *at = g->buf + (off - w0);
        if (!copy && write)
            mark(g->bm[par], off - w0, len);
        else if (copy && write)
            memcpy(at, mem + (u - *v), (size_t)len);
        else if (copy)
            memcpy(mem + (u - *v), at, (size_t)len);
        lo = off < lo ? off : lo;
        hi = off + len;
    }
    if (copy && !write && s->stage)
        cm_dt_unpack_range(s->stage, (size_t)(ve - *v), s->buf, (int)s->count, s->t, (size_t)(*v - s->v0));
    if (!copy) {
        struct hdr *h = &g->h[par];
        int64_t cur = __atomic_load_n(&h->lo, __ATOMIC_RELAXED);
        while (lo < cur && !__atomic_compare_exchange_n(&h->lo, &cur, lo, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        cur = __atomic_load_n(&h->hi, __ATOMIC_RELAXED);
        while (hi > cur && !__atomic_compare_exchange_n(&h->hi, &cur, hi, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    } else {
        *v = ve;
    }
}

/* The marked runs of [lo, hi) (window at w0), one pwrite each. */
static int write_runs(struct cm_file *f, const unsigned char *bm, char *buf, MPI_Offset w0, MPI_Offset lo,
                      MPI_Offset hi)
{
    for (MPI_Offset i = lo - w0, end = hi - w0, j; i < end; i = j) {
        while (i < end && !(bm[i >> 3] >> (i & 7) & 1))
            i++;
        for (j = i; j < end && (bm[j >> 3] >> (j & 7) & 1); j++)
            ;
        int e = j > i ? io_full(f->fd, 1, buf + i, j - i, w0 + i) : 0;
        if (e)
            return e;
    }
    return 0;
}

/* Steps B (before: 1) and D (before: 0) for the window of aggregator a. */
static void aggregate(struct cm_file *f, int write, int before, int par, int a, MPI_Offset w0, int *err)
{
    struct agg *g = &f->cb->a[a];
    struct hdr *h = &g->h[par];
    MPI_Offset lo = h->lo, hi = h->hi;
    if (lo < hi) {
        char *at = g->buf + (lo - w0);
        int e = 0;
        /* A file opened MPI_MODE_WRONLY cannot be read: a span with
         * holes is then written run by run. */
        int unread = write && (f->amode & MPI_MODE_WRONLY);
        if (before && !unread && (!write || !covered(g->bm[par], lo - w0, hi - w0)))
            e = io_full(f->fd, 0, at, hi - lo, lo);
        else if (!before && write && unread && !covered(g->bm[par], lo - w0, hi - w0))
            e = write_runs(f, g->bm[par], g->buf, w0, lo, hi);
        else if (!before && write)
            e = io_full(f->fd, 1, at, hi - lo, lo);
        if (e && !*err)
            *err = e;
        if (!before && write)
            memset(g->bm[par] + ((lo - w0) >> 3), 0, (size_t)(((hi - w0 + 7) >> 3) - ((lo - w0) >> 3)));
    }
    if (!before) {
        h->lo = INT64_MAX;
        h->hi = -1;
    }
}

/* Steps A (copy 0) and C (copy 1) of round r: this rank's pieces in the
 * window of every aggregator (cur: where its stream is in each). */
static void rank_step(struct cm_file *f, const struct plan *p, struct side *s, int write, int copy, int par,
                      MPI_Offset r, MPI_Offset *cur, MPI_Offset stop)
{
    MPI_Offset w0, w1;
    for (int a = 0; cur && a < f->cb->naggs; a++) {
        window(f, p, a, r, &w0, &w1);
        if (w0 < w1)
            pieces(f, s, write, copy, par, a, w0, w1, &cur[a], stop);
    }
}

/* Steps B (before: 1) and D of round r on aggregator me (-1: not one). */
static void agg_step(struct cm_file *f, const struct plan *p, int write, int before, int par, int me, MPI_Offset r,
                     int *err)
{
    MPI_Offset w0, w1;
    if (me < 0)
        return;
    window(f, p, me, r, &w0, &w1);
    aggregate(f, write, before, par, me, w0, err);
}

int cm_io_twophase(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf, MPI_Count count,
                   MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone, int *rcp)
{
    int rc = cm_io_check_access(f, call, write, count, dt);
    /* Quiet checks: an error is raised by the independent access that
     * every rank then does. */
    int bad = rc || epos < 0;
    const struct cm_datatype *t = bad ? NULL : cm_dt_lookup(dt);
    MPI_Offset v0 = bad ? 0 : epos * f->esize, total = bad ? 0 : (MPI_Offset)t->size * count;
    MPI_Offset eof = INT64_MAX;
    struct stat sb;
    if (!bad && !write)
        eof = fstat(f->fd, &sb) ? (bad = 1, 0) : sb.st_size;
    struct extent e = bad ? (struct extent){ 0, 0, 0, 0 } : walk(f, v0, total, eof);
    long long mine[5] = { bad, e.lo, e.hi, e.bytes, e.runs }, (*all)[5] = malloc((size_t)f->size * sizeof *all);
    if (!all)
        return 0;
    PMPI_Allgather(mine, 5, MPI_LONG_LONG, all, 5, MPI_LONG_LONG, f->comm);
    struct plan p;
    int go = decide(f, write, (const long long(*)[5])all, &p);
    free(all);
    if (!go || segment(f, p.dom))
        return 0;
    p.rounds = (p.dom + f->cb->bsize - 1) / f->cb->bsize;

    struct side s = { t, buf, count, v0, NULL };
    int err = 0, par = 0, nag = f->cb->naggs, me = -1;
    if (!t->contig && e.bytes) {
        size_t cap = (size_t)(e.bytes < f->cb->bsize ? e.bytes : f->cb->bsize);
        if (!(s.stage = malloc(cap)))
            err = ENOMEM;
    }
    MPI_Offset *cur = malloc((size_t)nag * sizeof *cur), end = v0 + e.bytes;
    if (!cur)
        err = ENOMEM;
    for (int a = 0; a < nag; a++) {
        if (f->hints.aggs[a] == f->rank)
            me = a;
        if (cur)
            cur[a] = skip_to(f, a ? cur[a - 1] : v0, end, p.base + a * p.dom);
    }
    /* A rank without memory still takes every step, moving nothing. */
    MPI_Offset stop = err ? v0 : end;
    for (MPI_Offset r = 0; r < p.rounds; r++, par ^= 1) {
        rank_step(f, &p, &s, write, 0, par, r, cur, stop);
        PMPI_Barrier(f->comm);
        agg_step(f, &p, write, 1, par, me, r, &err);
        PMPI_Barrier(f->comm);
        rank_step(f, &p, &s, write, 1, par, r, cur, stop);
        PMPI_Barrier(f->comm);
        agg_step(f, &p, write, 0, par, me, r, &err);
    }
    free(cur);
    free(s.stage);
    int cls = err ? cm_io_errno_class(err) : MPI_SUCCESS, any;
    PMPI_Allreduce(&cls, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (err)
        *rcp = cm_io_error(f, cls, call, "collective %s: %s", write ? "write" : "read", strerror(err));
    else if (any)
        *rcp = cm_io_error(f, any, call, "the collective %s failed on another rank", write ? "write" : "read");
    else
        *rcp = MPI_SUCCESS;
    if (!*rcp)
        cm_io_set_done(f, e.bytes, st, ndone);
    return 1;
}
