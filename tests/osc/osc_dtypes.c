/*
 * osc_dtypes.c -- derived datatypes on the origin and the target side of
 * Put, Get, Accumulate and Get_accumulate (issue 23 items 2 and 5).
 *
 * Five layouts of 8 ints each (contiguous, vector, indexed, struct, resized
 * with a gap), every (origin layout, target layout) pair in one epoch, each
 * pair on its own region of the target's window; the test knows each layout
 * as a list of int offsets (written here, not asked of MPI), so it computes
 * what every int of both buffers must hold, gaps included.  Window kinds:
 * allocate, shared, dynamic (user memory); epochs: fence and lock_all.
 */
#include "osc_common.h"

#define NL 5
#define SPAN 16 /* ints per region and per origin buffer */

struct layout {
    const char *name;
    MPI_Datatype type;
    int count;
    int ofs[8];
};
static struct layout L[NL];
static int me, n;

static void make_layouts(void)
{
    static const int ib[4] = {1, 3, 2, 2}, id[4] = {0, 2, 7, 11};
    static const int sb[3] = {2, 3, 3};
    static const MPI_Aint sd[3] = {0, 12, 28};
    static const MPI_Datatype st[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Datatype pair;
    L[0] = (struct layout){"contiguous", MPI_INT, 8, {0, 1, 2, 3, 4, 5, 6, 7}};
    L[1] = (struct layout){"vector(4,2,3)", MPI_DATATYPE_NULL, 1, {0, 1, 3, 4, 6, 7, 9, 10}};
    MPI_Type_vector(4, 2, 3, MPI_INT, &L[1].type);
    L[2] = (struct layout){"indexed", MPI_DATATYPE_NULL, 1, {0, 2, 3, 4, 7, 8, 11, 12}};
    MPI_Type_indexed(4, ib, id, MPI_INT, &L[2].type);
    L[3] = (struct layout){"struct", MPI_DATATYPE_NULL, 1, {0, 1, 3, 4, 5, 7, 8, 9}};
    MPI_Type_create_struct(3, sb, sd, st, &L[3].type);
    L[4] = (struct layout){"resized(2 ints, extent 4)", MPI_DATATYPE_NULL, 4, {0, 1, 4, 5, 8, 9, 12, 13}};
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 0, 4 * (MPI_Aint)sizeof(int), &L[4].type);
    MPI_Type_free(&pair);
    for (int i = 1; i < NL; i++)
        MPI_Type_commit(&L[i].type);
}

static int tinit(int t, int region, int i) { return 100000 * (t + 1) + 100 * region + i; }
static int oval(int r, int pair, int i) { return -(1000000 * (r + 1) + 100 * pair + i); }

enum { D_PUT, D_GET, D_ACC, D_GACC, D_NOPS };
static const char *const opname[D_NOPS] = {"Put", "Get", "Accumulate", "Get_accumulate"};

int main(int argc, char **argv)
{
    osc_start(&argc, &argv, "osc_dtypes", &me, &n);
    make_layouts();
    const int kinds[3] = {OSC_ALLOCATE, OSC_SHARED, OSC_DYNAMIC};
    const int npairs = NL * NL, ints = npairs * SPAN;
    int *obuf = malloc((size_t)ints * sizeof(int)), *rbuf = malloc((size_t)ints * sizeof(int));
    CHECK(obuf && rbuf, "malloc");
    int cases = 0;
    for (int ki = 0; ki < 3; ki++) {
        /* the window holds ints: nelem long longs = 2 ints each */
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kinds[ki], ints / 2, MPI_COMM_WORLD);
        int *win_ints = (int *)w.base;
        for (int fence = 0; fence < 2; fence++)
            for (int op = 0; op < D_NOPS; op++) {
                const int t = (me + 1 + cases) % n, from = (me - 1 - cases % n + 2 * n) % n;
                osc_local_begin(&w);
                for (int p = 0; p < npairs; p++)
                    for (int i = 0; i < SPAN; i++)
                        win_ints[p * SPAN + i] = tinit(me, p, i);
                osc_local_end(&w);
                for (int p = 0; p < npairs; p++)
                    for (int i = 0; i < SPAN; i++) {
                        obuf[p * SPAN + i] = oval(me, p, i);
                        rbuf[p * SPAN + i] = 7;
                    }
                MPI_Barrier(MPI_COMM_WORLD);
                if (fence)
                    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
                else
                    CHECK_MPI(MPI_Win_lock_all(0, w.win));
                for (int p = 0; p < npairs; p++) {
                    const struct layout *o = &L[p / NL], *tl = &L[p % NL];
                    /* a region's byte offset: disp_unit is 8 (or 1 for dynamic) */
                    MPI_Aint d = w.kind == OSC_DYNAMIC ? MPI_Aint_add(w.addr[t], (MPI_Aint)p * SPAN * (MPI_Aint)sizeof(int))
                                                       : (MPI_Aint)p * SPAN / 2;
                    int *ob = obuf + p * SPAN, *rb = rbuf + p * SPAN;
                    if (op == D_PUT)
                        CHECK_MPI(MPI_Put(ob, o->count, o->type, t, d, tl->count, tl->type, w.win));
                    else if (op == D_GET)
                        CHECK_MPI(MPI_Get(rb, o->count, o->type, t, d, tl->count, tl->type, w.win));
                    else if (op == D_ACC)
                        CHECK_MPI(MPI_Accumulate(ob, o->count, o->type, t, d, tl->count, tl->type, MPI_SUM, w.win));
                    else
                        CHECK_MPI(MPI_Get_accumulate(ob, o->count, o->type, rb, o->count, o->type, t, d, tl->count,
                                                     tl->type, MPI_SUM, w.win));
                }
                if (fence)
                    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
                else
                    CHECK_MPI(MPI_Win_unlock_all(w.win));
                MPI_Barrier(MPI_COMM_WORLD);
                /* origin side: result buffers */
                for (int p = 0; p < npairs; p++) {
                    const struct layout *o = &L[p / NL], *tl = &L[p % NL];
                    int want[SPAN];
                    for (int i = 0; i < SPAN; i++)
                        want[i] = 7;
                    if (op == D_GET || op == D_GACC)
                        for (int j = 0; j < 8; j++)
                            want[o->ofs[j]] = tinit(t, p, tl->ofs[j]);
                    for (int i = 0; i < SPAN; i++)
                        CHECK(rbuf[p * SPAN + i] == want[i], "%s window, %s, %s from %s to %s: result int %d is %d, expected %d",
                              osc_kind_name[w.kind], fence ? "fence" : "lock_all", opname[op], o->name, tl->name, i,
                              rbuf[p * SPAN + i], want[i]);
                }
                /* target side: my regions, written by rank `from` */
                osc_local_begin(&w);
                for (int p = 0; p < npairs; p++) {
                    const struct layout *o = &L[p / NL], *tl = &L[p % NL];
                    int want[SPAN];
                    for (int i = 0; i < SPAN; i++)
                        want[i] = tinit(me, p, i);
                    for (int j = 0; j < 8; j++) {
                        int v = oval(from, p, o->ofs[j]);
                        if (op == D_PUT)
                            want[tl->ofs[j]] = v;
                        else if (op == D_ACC || op == D_GACC)
                            want[tl->ofs[j]] += v;
                    }
                    for (int i = 0; i < SPAN; i++)
                        CHECK(win_ints[p * SPAN + i] == want[i],
                              "%s window, %s, %s from %s to %s: target int %d is %d, expected %d (origin %d)",
                              osc_kind_name[w.kind], fence ? "fence" : "lock_all", opname[op], o->name, tl->name, i,
                              win_ints[p * SPAN + i], want[i], from);
                }
                osc_local_end(&w);
                MPI_Barrier(MPI_COMM_WORLD);
                cases++;
            }
        osc_win_free(&w);
    }
    for (int i = 1; i < NL; i++)
        MPI_Type_free(&L[i].type);
    free(obuf);
    free(rbuf);
    if (me == 0)
        printf("osc_dtypes: %d epochs of %d layout pairs passed at %d ranks\n", cases, npairs, n);
    MPI_Finalize();
    return 0;
}
