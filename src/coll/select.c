/*
 * select.c -- the registry of collective algorithms and the selector.
 *
 * The algorithms are those of algorithms.def, one table {name, function,
 * applies_to} with each collective's rows together.  The selector takes
 * the first row of the tuning table that matches the call; COREMPI_<COLL>=name
 * forces an algorithm instead (if it does not apply to the call, the default
 * is used and COREMPI_VERBOSE says so).  COREMPI_VERBOSE=coll prints the
 * choice once per (collective, communicator, size class).  The environment is
 * read once.
 */
#include "coll/coll.h"
#include "coll/hier.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COREMPI
#include "coll/shm.h"
#endif

static int cm_coll_needs_commutative(const struct cm_coll_query *q) { return q->commutative; }

/* Every algorithm of algorithms.def, collective after collective. */
static const struct cm_coll_algo algos[] = {
#define CM_ALGO(coll, name, function, applies_to) {#name, (void (*)(void))function, applies_to},
#include "coll/algorithms.def"
};

/* The position of each row in algos[], and of each collective's first row:
 * a collective's marker takes the next row's number, and its algorithms
 * follow it in the list. */
enum {
#define CM_COLL(coll, COLL) CM_FIRST_##coll, CM_MARK_##coll = CM_FIRST_##coll - 1,
#define CM_ALGO(coll, name, function, applies_to) CM_ROW_##coll##_##name,
#include "coll/algorithms.def"
    CM_ROWS
};
static const unsigned short first_row[CM_COLL_NUM + 1] = {
#define CM_COLL(coll, COLL) CM_FIRST_##coll,
#include "coll/algorithms.def"
    CM_ROWS
};

/* Each row's collective, to check that the list keeps them together. */
enum {
#define CM_COLL(coll, COLL) CM_ID_##coll = CM_COLL_##COLL,
#include "coll/algorithms.def"
};
static const unsigned char row_coll[CM_ROWS] = {
#define CM_ALGO(coll, name, function, applies_to) CM_ID_##coll,
#include "coll/algorithms.def"
};

static const char *const coll_name[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) #coll,
#include "coll/algorithms.def"
};
static const char *const coll_env[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) "COREMPI_" #COLL,
#include "coll/algorithms.def"
};

/*
 * Tuning table: first matching row wins; a row matches when size <= max_size
 * and bytes <= max_bytes (bytes: the whole vector; for all-gather one rank's
 * block).  Figures from seed 000 §4 (8 and 16 SPEs), to be re-measured with
 * `make bench` on real nodes:
 *  - barrier: rdb for powers of two (cross-level traffic only in the last
 *    round); dissemination otherwise (rdb pays two extra rounds).
 *  - bcast: one-to-all is best up to 2 KB on one level (8 ranks), two-to-all
 *    beyond 8 (one message crosses, then two fan-outs); the ordered binomial
 *    in between and, up to 8 ranks, up to 16 KiB, then two-to-all: measured
 *    at 8 ranks on 2 cores (bench/coll.c, 3 runs) the segmented binomial
 *    took 2x longer from 4 KiB to 4 MiB (1 MiB: 915-1186 us against the
 *    ordered binomial's 401-437), two-to-all 97-231 us at 256 KiB and
 *    342-756 at 1 MiB against the binomial's 157-213 and 416-1354;
 *    beyond 8 ranks the hybrid segmented binomial, whose second phase stays
 *    inside a level.
 *  - reduce: binomial up to 1 KB (8) / 4 KB (16), then Rabenseifner.
 *  - allreduce: rdb below 512 B; rdb with barriers up to 1-2 KB where
 *    transfers start to collide; above, Rabenseifner on one level, and with
 *    more than 8 ranks hybrid_a (256 B-2 KB) and hybrid_b (> 2 KB, commutative).
 *  - allgather: rdb for small blocks; hybrid for > 8 ranks from 4 KB (fewer
 *    level-crossing messages); ring for large totals (bandwidth-optimal).
 */
struct tune_row {
    enum cm_coll_id coll;
    int max_size;
    size_t max_bytes;
    int pow2_only;
    const char *algo;
};
#define ANY_SIZE 0x7fffffff
#define ANY_BYTES ((size_t)-1)
static const struct tune_row tuning[] = {
#ifdef COREMPI
    /*
     * Shared-memory direct algorithms (shm_*.c, notes/shm-coll.md), measured
     * with bench/coll.c on the 2-core CI machine at 2 ranks (one core each)
     * and 8 ranks (oversubscribed), medians of 3 runs, shm vs the p2p rows
     * below (speed-up = p2p / shm):
     *  - barrier: 2.4x (2 ranks), 3.2x (8): one fetch-add, one futex wake.
     *  - allreduce up to a slot (4 KiB): 1.3-1.7x (2), 2.6-4.8x (8); above,
     *    the single-copy slice reduction wins at 2-4 ranks (1.8-1.9x at 64 KiB
     *    - 1 MiB) but not oversubscribed at 16 KiB (0.6x): p2p rows there.
     *  - reduce: 1.3-1.8x (2 ranks, all sizes, 5.8x at 1 MiB); at 8 only
     *    the tiny inline case wins clearly (2.8-6x at 8-64 B).
     *  - allgather: 1.2-3.5x (2 ranks except 4 KiB, 0.84x), 2.2-3.1x up to
     *    4 KiB blocks at 8, 1.2x beyond.
     *  - alltoall: while all blocks fit one slot: 1.3x (2), 4.5x (8, 64 B);
     *    beyond, single copy loses oversubscribed.
     *  - gather up to 4 KiB at 3+ ranks (2-50x at 8: no unexpected-message
     *    storm at the root); p2p is better at 2 ranks.
     *  - bcast up to 1 KiB: the broadcast FIFO (no sync: the root runs up
     *    to 64 calls ahead) 1.1-1.5x at 2 ranks, 1.0-1.4x at 8 vs binomial
     *    with 16 entries; 64 took 8 ranks on 2 cores from 0.41-0.42 us per
     *    8-byte call to 0.18 (Open MPI 0.39-0.44): more calls per time slice.
     *    Above 16 KiB point-to-point wins at every size since rendezvous
     *    streams through the rings (<512 KiB) and splits the copy (beyond):
     *    at 2 ranks flat/binomial vs shm 2-3x (64 KiB: 3.7-4.2 us vs
     *    6.3-7.3; 1 MiB: 41-45 vs 131-155).  Scatter, and bcast above 1 KiB
     *    oversubscribed, make everyone wait for everyone in a shm sync.
     * A row whose algorithm does not apply (no segment, non-contiguous
     * reduction, ...) passes the call on to the next matching row.
     */
    {CM_COLL_BARRIER, ANY_SIZE, ANY_BYTES, 0, "shm"},
    /* The bcast FIFO, up to an entry (shm.h): 8 ranks, 2 / 4 KiB 0.30 / 0.53
     * us vs flat 1.5-1.7 / 2.5-3.9 (Open MPI 9.4-10 / 16-20; 2026-11-25). */
    {CM_COLL_BCAST, ANY_SIZE, CM_SHM_BFIFO_BYTES, 0, "shm"},
    /* With 256 KiB slots, and larger vectors going through them piece by
     * piece, the shm paths win most sizes (2026-11-24, bench/coll.c -s, 3
     * alternated runs, medians in us; Open MPI in brackets):
     *  2 ranks: bcast to 64 KiB (3.0 vs flat 5.8 [9.6]; beyond: below);
     *    reduce and allreduce at every size
     *    (reduce 1 MiB 100 vs binomial 179 [129]; allreduce 1 MiB 135 vs
     *    Rabenseifner 190 [192], 4 MiB 690 vs 1262 [1117]).
     *  8 ranks on 2 cores: bcast, reduce, allreduce and scatter at every size
     *    from 16 KiB (bcast 1 MiB 184 vs two-to-all 428 [477]; reduce 64 KiB
     *    35 vs binomial 103 [117]; allreduce 1 MiB 624 vs Rabenseifner 1542
     *    [1347]; scatter 256 KiB 115 vs linear 160 [153]); bcast of 5-8 KiB
     *    flat (2.5-6.9 vs shm 7.6-8.8).
     *  gather: shm to 256 KiB blocks (2 ranks 24 vs linear 26 [39]; 8 ranks
     *    103 vs 122 [291]); beyond, see gather's rows below. */
    /* 2 ranks beyond 64 KiB: the slot pieces overtook the split single
     * copy of a p2p message once slots grew to 256 KiB (CMA moves 17 GB/s
     * here, memcpy through the shared cache several times that): 2026-11-24
     * evening, COREMPI_BCAST=shm vs flat, 2 alternated runs each placement,
     *   shared caches: 256 KiB 3.8-4.0 vs 5.4-5.7, 1 MiB 15.6-19.5 vs
     *     31-33, 4 MiB 71 vs 124-127;
     *   split caches: 256 KiB 7.4-7.8 vs 13.7-14.6, 1 MiB 31-32 vs 34-48,
     *     4 MiB 122-130 vs 132-139 [Open MPI 17.5-18.7, 66-69, 259-264]. */
    {CM_COLL_BCAST, 2, ANY_BYTES, 0, "shm"},
    {CM_COLL_BCAST, 8, 8192, 0, "flat"},
    {CM_COLL_BCAST, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_REDUCE, 2, ANY_BYTES, 0, "shm"},
    {CM_COLL_ALLREDUCE, 2, ANY_BYTES, 0, "shm"},
    {CM_COLL_REDUCE, 4, ANY_BYTES, 0, "shm"},
    {CM_COLL_REDUCE, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_REDUCE, ANY_SIZE, 64, 0, "shm"},
    {CM_COLL_ALLREDUCE, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_ALLREDUCE, ANY_SIZE, 4096, 0, "shm"},
    {CM_COLL_ALLGATHER, ANY_SIZE, 1024, 0, "shm"},
    /* 2 ranks: the slot up to 16 KiB (8/16 KiB 1.1/2.0 us vs rdb 1.3/2.9,
     * Open MPI 6.1/10.1; 2026-11-24, 4 alternated runs), then one streamed
     * exchange (32 KiB 5.2 vs shm 6.1). */
    {CM_COLL_ALLGATHER, 2, 16384, 0, "shm"},
    {CM_COLL_ALLGATHER, 2, 32768, 0, "rdb"},
    {CM_COLL_ALLGATHER, ANY_SIZE, 4096, 0, "shm"},
    {CM_COLL_ALLGATHER, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_ALLTOALL, 4, 1024, 0, "shm"},
    {CM_COLL_ALLTOALL, 16, 256, 0, "shm"},
    /* 8 ranks on 2 cores, 16-64 KiB blocks: everyone reads its blocks from
     * the owners after one sync, 106-123 / 298-334 us against pairwise's
     * 164-373 / 357-1036 (3 runs).  Since the reads go straight into the
     * receive buffer (no bounce block) it also leads at 256 KiB, 1566-1644
     * against 1868-2154, and ties at 1 MiB (7500-8000 vs 7333-9031). */
    {CM_COLL_ALLTOALL, 8, ANY_BYTES, 0, "shm"},
    /* Alltoallv/w in rounds through the slots (shm_alltoallv.c) against
     * pairwise exchange, 2026-11-24, us [Open MPI in the bench run just
     * before]: 2 ranks 8 B 0.11 vs 0.20 [0.156], 64 KiB 2.5 vs 3.9 [6.6],
     * 1 MiB 61 vs 94 [88]; 8 ranks on 2 cores 8 B 5.3 vs 26.5 [16-21],
     * 64 KiB 95 vs 180 [214-220], 1 MiB 3477 vs 4346 [4277-4738]. */
    {CM_COLL_ALLTOALLV, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_ALLTOALLW, 8, ANY_BYTES, 0, "shm"},
    /* Tiny scans along the chain through the reduce FIFO: 2 ranks, 8 B 0.07 us
     * against 0.14 over point-to-point (Open MPI 0.09-0.10).  At 8 ranks on 2
     * cores it lost to the p2p chain while the FIFO had 32 entries (1.9-3.2
     * us: a rank could run only 32 calls ahead per time slice); with 128,
     * 0.28-0.38 against the chain's 0.39-0.91 (Open MPI 0.40-0.44;
     * 2026-11-24, 3 alternated runs). */
    {CM_COLL_SCAN, 8, CM_SHM_RFIFO_PAIR_BYTES, 0, "shm"},
    {CM_COLL_EXSCAN, 8, CM_SHM_RFIFO_PAIR_BYTES, 0, "shm"},
    /* Larger: at 8 ranks on 2 cores the slots with every rank running the
     * prefix of its slice (both cores fold at once) beat the chain from
     * 64 KiB: 75 / 207 / 1305 us at 64 KiB / 256 KiB / 1 MiB against
     * 109 / 304 / 1588 (Open MPI 84 / 211 / 1482; 3 alternated runs,
     * 2026-11-24); the chain keeps smaller vectors (1 KiB 4.0 vs 20; 16 KiB
     * 8-13 vs 14; at 32 KiB the slots lead, 18.5-21.7 vs 25-26.6 [26-28])
     * and 2 ranks (64 KiB 7.6 vs 8.6). */
    {CM_COLL_SCAN, 2, ANY_BYTES, 0, "linear"},
    {CM_COLL_EXSCAN, 2, ANY_BYTES, 0, "linear"},
    {CM_COLL_SCAN, 8, 16384, 0, "linear"},
    {CM_COLL_EXSCAN, 8, 16384, 0, "linear"},
    {CM_COLL_SCAN, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_EXSCAN, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_SCATTER, 2, 512, 0, "shm"},  /* the bcast FIFO: 8 B 0.09 us vs linear 0.12; 512 B 0.11 vs 0.21 */
    {CM_COLL_GATHER, ANY_SIZE, CM_SHM_RFIFO_PAIR_BYTES, 0, "shm"},  /* the reduce FIFO: 2 ranks 0.08 us vs linear 0.145 */
    /* At 8 ranks the FIFO takes blocks up to CM_SHM_RFIFO_BYTES (shm.h). */
    /* 2 ranks, scatter: a block of up to 16 KiB through the slot, then one
     * streamed message up to a slot (8/16 KiB 1.2/2.4 us vs linear 2.4/4.6;
     * 64 KiB linear 6.8 vs shm 8.8 [9.5]; 256 KiB 6.9-8.6 vs 11), and
     * beyond a slot the slot pieces, whose copies in and out overlap (512
     * KiB 16.2-16.7 vs 17-19.5, 1 MiB 39-40 vs 55-56, 4 MiB 191-204 vs
     * 215-240 [39, 83-85, 345-365]; shared caches, 3 alternated runs).
     * 8 ranks on 2 cores: the slot pieces also beat each receiver reading
     * its block from the root (CMA): 512 KiB 111-130 vs 224-236, 1 MiB
     * 275-300 vs 410-436 [180-188, 644-748].
     * Gather, the mirror image: slot pieces at 8 ranks at every size (1 MiB
     * 242-288 vs linear 415-428 [939-1096]); at 2 ranks to 1 MiB (1 MiB
     * 48-49 vs 58 [89-91]), linear at 4 MiB (213-215 vs 231-238 [352-389];
     * split caches). */
    {CM_COLL_SCATTER, 2, 16384, 0, "shm"},
    {CM_COLL_SCATTER, 2, 262144, 0, "linear"},
    {CM_COLL_SCATTER, 2, ANY_BYTES, 0, "shm"},
    {CM_COLL_SCATTER, 8, ANY_BYTES, 0, "shm"},
    /* 2 ranks past the FIFO's 120 B: a sender's eager message lets it run
     * ahead like the FIFO does, where the slot's sync holds it back (128 B -
     * 4 KiB: shared caches 0.031-0.139 us vs shm 0.097-0.169, split
     * 0.14-0.48 vs 0.41-0.55 [Open MPI 0.076-2.0, 0.17-2.8]). */
    {CM_COLL_GATHER, 2, 4096, 0, "linear"},
    {CM_COLL_GATHER, 2, 1048576, 0, "shm"},
    {CM_COLL_GATHER, 2, ANY_BYTES, 0, "linear"},
    {CM_COLL_GATHER, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_GATHER, ANY_SIZE, 4096, 0, "shm"},
    /* Gatherv/scatterv: blocks small enough ride the FIFOs, the others go
     * point to point as in linear, so shm is never the slower. */
    {CM_COLL_GATHERV, ANY_SIZE, ANY_BYTES, 0, "shm"},
    {CM_COLL_SCATTERV, ANY_SIZE, ANY_BYTES, 0, "shm"},
#endif
    /* Reduce-scatter, equal blocks (bytes = one rank's block): tiny blocks
     * through the tuned allreduce (2 ranks, 8 B: 0.18 us vs reduce+scatterv
     * 0.36, Open MPI 0.21; 8 ranks 6.5 vs 21-28, Open MPI 13.5); 2 ranks:
     * direct exchange (1 KiB 0.48 vs 0.85; 1 MiB 157 vs 295, Open MPI
     * 1200-1570); 8 ranks: reduce + scatterv up to 4 KiB (1 KiB: 22-26 vs
     * pairwise 40), pairwise beyond (64 KiB 418-594, Open MPI 1740-1810). */
    /* Through the shared area up to 8 ranks (itself taking the allreduce
     * route beyond a slot): one sync, each rank folds its block straight
     * into its buffer (2026-11-24, us, shm / allreduce / pairwise [Open
     * MPI]): 2 ranks 8 B 0.10 / 0.16 / 0.27 [0.16], 1 KiB 0.15 / 0.26 /
     * 0.40 [0.36], 64 KiB 3.4 / 5.4 / 5.5 [9.7]; 8 ranks on 2 cores 1 KiB
     * 6.4 / 7.2 / 33 [29], 16 KiB 23 / 38 / 61 [92]. */
    {CM_COLL_REDUCE_SCATTER_BLOCK, 8, ANY_BYTES, 0, "shm"},
    {CM_COLL_REDUCE_SCATTER_BLOCK, 16, 64, 0, "allreduce"},
    {CM_COLL_REDUCE_SCATTER_BLOCK, 2, ANY_BYTES, 0, "pairwise"},
    {CM_COLL_REDUCE_SCATTER_BLOCK, ANY_SIZE, 4096, 0, "reduce_scatter"},
    {CM_COLL_REDUCE_SCATTER_BLOCK, ANY_SIZE, ANY_BYTES, 0, "pairwise"},
    /* Reduce-scatter with counts: equal counts the reduce_scatter_block rows
     * above, other counts the allreduce route (bench/coll.c's equal blocks
     * forced through each, 2026-11-24, us [Open MPI]: 2 ranks 8 B
     * allreduce 0.18 / reduce_scatterv 0.31 [0.49], 1 MiB 110 / 285
     * [206]; 8 ranks on 2 cores 8 B 5.4 / 19.3 [13.6], 64 KiB 134 / 349
     * [312], 1 MiB 4329 / 11371 [7699]).  Allgatherv with equal counts
     * back to back: allgather. */
    {CM_COLL_REDUCE_SCATTER, ANY_SIZE, ANY_BYTES, 0, "equal"},
    {CM_COLL_ALLGATHERV, ANY_SIZE, ANY_BYTES, 0, "regular"},
    /* Scan/exscan: the chain up to 16 ranks at every size (2 ranks, 8 B:
     * 0.14 us vs rdb 0.29, 1 MiB 87-171 vs 209-323; 8 ranks on 2 cores: 8 B
     * 1.0-1.1 vs 15-16, 64 KiB 49-61 vs 139-145, 1 MiB 754-1878 vs
     * 2769-3155; Open MPI 0.09, 0.75-1.0, 62-154, 1200); beyond, recursive
     * doubling's log p rounds. */
    {CM_COLL_SCAN, 16, ANY_BYTES, 0, "linear"},
    {CM_COLL_EXSCAN, 16, ANY_BYTES, 0, "linear"},
    {CM_COLL_BARRIER, ANY_SIZE, ANY_BYTES, 1, "rdb"},
    {CM_COLL_BARRIER, ANY_SIZE, ANY_BYTES, 0, "dissemination"},

    {CM_COLL_BCAST, 8, 2048, 0, "flat"},
    {CM_COLL_BCAST, ANY_SIZE, 2048, 0, "two_to_all"},
    {CM_COLL_BCAST, ANY_SIZE, 16384, 0, "binomial_ordered"},
    {CM_COLL_BCAST, 8, 16384, 0, "binomial_ordered"},
    {CM_COLL_BCAST, 8, ANY_BYTES, 0, "two_to_all"},
    {CM_COLL_BCAST, ANY_SIZE, ANY_BYTES, 0, "hybrid_seg_binomial"},

    {CM_COLL_REDUCE, 8, 1024, 0, "binomial"},
    {CM_COLL_REDUCE, ANY_SIZE, 4096, 0, "binomial"},
    {CM_COLL_REDUCE, ANY_SIZE, ANY_BYTES, 0, "rabenseifner"},

    {CM_COLL_ALLREDUCE, ANY_SIZE, 256, 0, "rdb"},
    {CM_COLL_ALLREDUCE, 8, 1024, 0, "rdb_barrier"},
    {CM_COLL_ALLREDUCE, 8, ANY_BYTES, 0, "rabenseifner"},
    {CM_COLL_ALLREDUCE, ANY_SIZE, 2048, 0, "hybrid_a"},
    {CM_COLL_ALLREDUCE, ANY_SIZE, ANY_BYTES, 0, "hybrid_b"},      /* falls back if non-commutative */

    {CM_COLL_ALLGATHER, 8, 2048, 1, "rdb"},
    {CM_COLL_ALLGATHER, 8, 2048, 0, "bruck"},
    {CM_COLL_ALLGATHER, ANY_SIZE, 2048, 0, "rdb"},
    {CM_COLL_ALLGATHER, 8, 65536, 0, "rdb"},
    {CM_COLL_ALLGATHER, 8, ANY_BYTES, 0, "ring"},
    {CM_COLL_ALLGATHER, ANY_SIZE, ANY_BYTES, 0, "hybrid"},
};

/* Second choice when the tuned or forced algorithm does not apply. */
static const char *const fallback[CM_COLL_NUM] = {
    [CM_COLL_ALLREDUCE] = "rabenseifner",
};

#define NROWS (sizeof(tuning) / sizeof(tuning[0]))

static struct {
    int ready;
    const char *forced[CM_COLL_NUM];
    int verbose;
    int level;
} env;

/* The tuning table resolved once: a collective's rows in table order, each
 * with its algorithm (NULL: not registered here), so that choosing costs a
 * few comparisons and no string compare per call. */
static struct {
    int ready;
    unsigned short first[CM_COLL_NUM], count[CM_COLL_NUM];
    unsigned short row[NROWS];
    const struct cm_coll_algo *algo[NROWS];
    const struct cm_coll_algo *forced[CM_COLL_NUM];
    const struct cm_coll_algo *fallback[CM_COLL_NUM];
} resolved;

static void read_env(void)
{
    if (env.ready)
        return;
    for (int c = 0; c < CM_COLL_NUM; c++) {
        const char *v = getenv(coll_env[c]);
        env.forced[c] = v && *v ? v : NULL;
    }
    /* As core/init.c reads it: "coll" among the words, or a value naming no
     * layer at all ("1", "all") which means everything. */
    const char *v = getenv("COREMPI_VERBOSE");
    if (v && *v && strcmp(v, "0") != 0)
        env.verbose = strstr(v, "coll") || !(strstr(v, "p2p") || strstr(v, "init"));
    size_t level = cm_env_size("COREMPI_COLL_LEVEL", 0);
    env.level = level > 65536 ? 65536 : (int)level;
    env.ready = 1;
}

/* COREMPI_<COLL> names no algorithm of that collective: say which exist. */
static void warn_unknown(enum cm_coll_id c)
{
    char names[512];
    size_t len = 0;
    names[0] = 0;
    for (int i = first_row[c]; i < first_row[c + 1] && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i > first_row[c] ? ", " : "",
                                algos[i].name);
    cm_env_warn(coll_env[c], env.forced[c], "names no %s algorithm (there are: %s); using the tuned choice",
                coll_name[c], names);
}

/* An algorithm listed under another collective's CM_COLL line would be
 * called with the wrong arguments: refuse to start (tests/coll's
 * algorithms.cmake refuses such a list at configure time already). */
static void check_rows(void)
{
    for (int c = 0; c < CM_COLL_NUM; c++)
        for (int i = first_row[c]; i < first_row[c + 1]; i++)
            if (row_coll[i] != c) {
                fprintf(stderr, "corempi: algorithms.def lists %s algorithm %s under %s\n", coll_name[row_coll[i]],
                        algos[i].name, coll_name[c]);
                abort();
            }
}

static void resolve(void)
{
    unsigned short next = 0;
    check_rows();
    for (int c = 0; c < CM_COLL_NUM; c++) {
        resolved.first[c] = next;
        for (size_t i = 0; i < NROWS; i++) {
            if (tuning[i].coll != (enum cm_coll_id)c)
                continue;
            resolved.row[next] = (unsigned short)i;
            resolved.algo[next] = cm_coll_find((enum cm_coll_id)c, tuning[i].algo);
            next++;
        }
        resolved.count[c] = (unsigned short)(next - resolved.first[c]);
        resolved.forced[c] = env.forced[c] ? cm_coll_find((enum cm_coll_id)c, env.forced[c]) : NULL;
        if (env.forced[c] && !resolved.forced[c])
            warn_unknown((enum cm_coll_id)c);
        resolved.fallback[c] = fallback[c] ? cm_coll_find((enum cm_coll_id)c, fallback[c]) : NULL;
    }
    resolved.ready = 1;
}

int cm_coll_level_size(MPI_Comm comm, int comm_size)
{
    read_env();
    if (env.level >= 2)
        return cm_pof2_floor(env.level);
    /* The machine's top level when the ranks fill it in equal blocks (two
     * packages of 8 cores: groups of 8, so only leaders cross); otherwise the
     * seeds' best hybrid at 16 ranks (hybrid-3-4): groups of a quarter. */
    int g = cm_coll_hier_group_size(comm);
    if (g < 2)
        g = cm_pof2_floor(comm_size) / 4;
    return g < 2 ? 2 : g;
}

const struct cm_coll_algo *cm_coll_list(enum cm_coll_id coll, int *n)
{
    *n = first_row[coll + 1] - first_row[coll];
    return &algos[first_row[coll]];
}

const struct cm_coll_algo *cm_coll_find(enum cm_coll_id coll, const char *name)
{
    for (int i = first_row[coll]; i < first_row[coll + 1]; i++)
        if (strcmp(algos[i].name, name) == 0)
            return &algos[i];
    return NULL;
}

static int applies(const struct cm_coll_algo *a, const struct cm_coll_query *q)
{
    return a && (!a->applies_to || a->applies_to(q));
}

/* Print once per (collective, communicator, size class). */
static void say_once(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q, const char *algo,
                     const char *why)
{
    enum { SEEN_MAX = 512 };
    static struct { int coll; intptr_t comm; int cls; } seen[SEEN_MAX];
    static int nseen;
    int cls = 0;
    for (size_t b = q->bytes; b > 1; b >>= 1)
        cls++;
    intptr_t c = (intptr_t)comm;
    for (int i = 0; i < nseen; i++)
        if (seen[i].coll == (int)coll && seen[i].comm == c && seen[i].cls == cls)
            return;
    if (nseen < SEEN_MAX) {
        seen[nseen].coll = coll;
        seen[nseen].comm = c;
        seen[nseen].cls = cls;
        nseen++;
    }
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "corempi: coll %s size %d bytes %zu%s: %s (%s)\n", coll_name[coll], q->size,
                q->bytes, q->commutative ? "" : " non-commutative", algo, why);
}

/* The last choice per collective.  A choice depends on the query alone (the
 * table, the forced names and every applies_to are fixed after start-up), and
 * a program calls the same collective with the same shape over and over: the
 * table walk and its applies_to calls cost a tiny collective a tenth of its
 * time.  Not used with COREMPI_VERBOSE=coll, which reports per communicator. */
static struct {
    struct cm_coll_query q;
    const struct cm_coll_algo *a;
} last_choice[CM_COLL_NUM];

/* y is the caller's fresh query, just written field by field with 4-byte
 * stores.  Compared plainly, GCC merges two int compares into one 8-byte
 * load, which the store buffer cannot forward from two 4-byte stores: a stall
 * that was a sixth of a tiny scatter's root.  Relaxed atomic loads are never
 * merged, so each reads exactly one stored field. */
static int field(const int *f) { return __atomic_load_n(f, __ATOMIC_RELAXED); }

static int same_query(const struct cm_coll_query *x, const struct cm_coll_query *y)
{
    return x->size == field(&y->size) && x->count == field(&y->count) && x->bytes == y->bytes &&
           x->commutative == field(&y->commutative) && x->contiguous == field(&y->contiguous);
}

static const struct cm_coll_algo *choose(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q);

const struct cm_coll_algo *cm_coll_select(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q)
{
    if (__builtin_expect(!resolved.ready, 0)) {
        read_env();
        resolve();
    }
    if (env.verbose)
        return choose(coll, comm, q);
    if (last_choice[coll].a && same_query(&last_choice[coll].q, q))
        return last_choice[coll].a;
    const struct cm_coll_algo *a = choose(coll, comm, q);
    last_choice[coll].q = *q;
    last_choice[coll].a = a;
    return a;
}

static const struct cm_coll_algo *choose(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q)
{
    const struct cm_coll_algo *a = NULL;
    const char *why = "tuned";
    if (env.forced[coll]) {
        a = resolved.forced[coll];
        if (applies(a, q)) {
            why = "forced";
        } else {
            static char warned[CM_COLL_NUM];
            if (env.verbose && !warned[coll]++)
                fprintf(stderr, "corempi: %s=%s %s; using the default\n", coll_env[coll], env.forced[coll],
                        a ? "does not apply to this call" : "is not an algorithm of this collective");
            a = NULL;
            why = "forced one does not apply";
        }
    }
    for (unsigned k = resolved.first[coll], end = k + resolved.count[coll]; !a && k < end; k++) {
        const struct tune_row *r = &tuning[resolved.row[k]];
        if (q->size > r->max_size || q->bytes > r->max_bytes)
            continue;
        if (r->pow2_only && (q->size & (q->size - 1)))
            continue;
        a = resolved.algo[k];
        if (!applies(a, q))
            a = NULL;      /* the next matching row gets its chance (shm rows first) */
    }
    if (!a)
        a = resolved.fallback[coll];
    if (!applies(a, q))
        a = &algos[first_row[coll]];      /* the first of each collective applies to everything */
    if (env.verbose)
        say_once(coll, comm, q, a->name, why);
    return a;
}
