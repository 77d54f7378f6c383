/*
 * attr_random.c -- random sequences of attribute calls on communicators
 * (dups of MPI_COMM_SELF), datatypes (dups of MPI_INT) and windows (on
 * MPI_COMM_SELF), with callbacks that themselves delete or set other
 * attributes and free keyvals, checked against a model kept by the test.
 *
 * Each attribute value is a fresh number; the model knows which (object,
 * keyval) holds it.  Checked after every step: Get_attr of every live keyval
 * on every object answers the model; a delete callback runs only for a value
 * that is attached, once, on the object and keyval holding it; a freed object
 * holds nothing; at the end every value set was deleted exactly once.
 * Copy callbacks (dup) return flag 0 or 1 and may delete or set attributes
 * of the old object.  Everything is local (SELF), so every rank runs its own
 * sequence.  Seed: argv[1] or ATTR_RANDOM_SEED (else the time), printed;
 * steps: argv[2] (default 20000).  Under the asan build (check-asan) a use
 * after free in the library's lists is caught too.
 */
#include "seeded.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NKIND 3 /* comm, type, win */
#define MAXO 4
#define MAXK 5
#define MAXV 200000

static int failures;
#define FAIL(...)                                                                                           \
    do {                                                                                                    \
        if (failures++ < 20) {                                                                              \
            printf("FAIL step %ld line %d: ", step, __LINE__);                                              \
            printf(__VA_ARGS__);                                                                            \
            printf("\n");                                                                                   \
        }                                                                                                   \
    } while (0)

static long step;
static uint64_t state;
static unsigned rnd(unsigned n)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state % n);
}

/* What a keyval's callbacks do (its extra_state). */
struct kv {
    int kind, slot, live; /* live: the user's handle is valid */
    int handle;
    int copy_mode; /* 0 flag 0; 1 copy; 2 copy, delete target on old; 3 copy, set target on old */
    int del_mode;  /* 0 nothing; 1 delete target; 2 set target; 3 free target's keyval */
    int target;    /* a keyval slot of the same kind */
};
static struct kv kvs[NKIND][MAXK];

struct obj {
    void *h; /* MPI_Comm, MPI_Datatype or MPI_Win */
    int live;
    int attached[MAXK]; /* value held per keyval slot, 0 none */
};
static struct obj objs[NKIND][MAXO];

static unsigned char vstate[MAXV]; /* 0 unused, 1 attached, 2 deleted, 3 copied (not yet placed) */
static short vobj[MAXV], vkey[MAXV];
static int nextv = 1;
static int pending[MAXV], npending; /* values made by copy callbacks during one dup */

static int obj_of(int kind, const void *h)
{
    for (int o = 0; o < MAXO; o++)
        if (objs[kind][o].live && objs[kind][o].h == h)
            return o;
    return -1;
}

/* ---- the calls, by kind --------------------------------------------- */
static int set_attr(int kind, void *h, int k, void *v)
{
    return kind == 0 ? MPI_Comm_set_attr((MPI_Comm)h, k, v)
         : kind == 1 ? MPI_Type_set_attr((MPI_Datatype)h, k, v) : MPI_Win_set_attr((MPI_Win)h, k, v);
}
static int get_attr(int kind, void *h, int k, void *v, int *flag)
{
    return kind == 0 ? MPI_Comm_get_attr((MPI_Comm)h, k, v, flag)
         : kind == 1 ? MPI_Type_get_attr((MPI_Datatype)h, k, v, flag) : MPI_Win_get_attr((MPI_Win)h, k, v, flag);
}
static int delete_attr(int kind, void *h, int k)
{
    return kind == 0 ? MPI_Comm_delete_attr((MPI_Comm)h, k)
         : kind == 1 ? MPI_Type_delete_attr((MPI_Datatype)h, k) : MPI_Win_delete_attr((MPI_Win)h, k);
}
static int free_keyval(int kind, int *k)
{
    return kind == 0 ? MPI_Comm_free_keyval(k) : kind == 1 ? MPI_Type_free_keyval(k) : MPI_Win_free_keyval(k);
}

/* Set a fresh value on (kind, object o, slot) and record it. */
static void do_set(int kind, int o, int slot)
{
    if (nextv >= MAXV)
        return;
    int v = nextv++;
    int rc = set_attr(kind, objs[kind][o].h, kvs[kind][slot].handle, (void *)(intptr_t)v);
    if (rc != MPI_SUCCESS) {
        FAIL("set_attr kind %d obj %d slot %d: rc %d", kind, o, slot, rc);
        return;
    }
    int old = objs[kind][o].attached[slot];
    if (old)
        FAIL("set_attr kind %d obj %d slot %d: old value %d was not deleted", kind, o, slot, old);
    vstate[v] = 1;
    vobj[v] = (short)o;
    vkey[v] = (short)slot;
    objs[kind][o].attached[slot] = v;
}

static void side_effect(int kind, int o, int mode, int target)
{
    struct kv *t = &kvs[kind][target];
    if (!t->live || o < 0)
        return;
    if (mode == 1) {
        if (delete_attr(kind, objs[kind][o].h, t->handle) != MPI_SUCCESS)
            FAIL("delete_attr from a callback failed");
    } else if (mode == 2) {
        if (t->del_mode == 0 && t->copy_mode < 2) /* no chains of sets */
            do_set(kind, o, target);
    } else if (mode == 3) {
        int k = t->handle;
        if (free_keyval(kind, &k) != MPI_SUCCESS)
            FAIL("free_keyval kind %d slot %d (keyval %d) from a callback failed", kind, target, t->handle);
        t->live = 0;
    }
}

static int on_delete(int kind, void *h, int k, void *val, struct kv *x)
{
    int v = (int)(intptr_t)val, o = obj_of(kind, h);
    if (v <= 0 || v >= nextv || vstate[v] != 1 || vobj[v] != o || vkey[v] != x->slot || k != x->handle) {
        FAIL("delete callback kind %d obj %d slot %d: value %d state %d (obj %d slot %d)", kind, o, x->slot, v,
             v > 0 && v < MAXV ? vstate[v] : -1, v > 0 && v < MAXV ? vobj[v] : -1, v > 0 && v < MAXV ? vkey[v] : -1);
        return MPI_SUCCESS;
    }
    vstate[v] = 2;
    objs[kind][o].attached[x->slot] = 0;
    side_effect(kind, o, x->del_mode, x->target);
    return MPI_SUCCESS;
}

static int on_copy(int kind, void *h, int k, struct kv *x, void *in, void *out, int *flag)
{
    int v = (int)(intptr_t)in, o = obj_of(kind, h);
    *flag = 0;
    if (v <= 0 || v >= nextv || vstate[v] != 1 || vobj[v] != o || vkey[v] != x->slot || k != x->handle) {
        FAIL("copy callback kind %d obj %d slot %d: value %d not attached there", kind, o, x->slot, v);
        return MPI_SUCCESS;
    }
    if (x->copy_mode && nextv < MAXV) {
        int nv = nextv++;
        vstate[nv] = 3;
        vkey[nv] = (short)x->slot;
        pending[npending++] = nv;
        *(void **)out = (void *)(intptr_t)nv;
        *flag = 1;
    }
    if (x->copy_mode >= 2)
        side_effect(kind, o, x->copy_mode == 2 ? 1 : 2, x->target);
    return MPI_SUCCESS;
}

static int cdel(MPI_Comm c, int k, void *v, void *x) { return on_delete(0, c, k, v, x); }
static int tdel(MPI_Datatype t, int k, void *v, void *x) { return on_delete(1, t, k, v, x); }
static int wdel(MPI_Win w, int k, void *v, void *x) { return on_delete(2, w, k, v, x); }
static int ccopy(MPI_Comm c, int k, void *x, void *in, void *out, int *flag) { return on_copy(0, c, k, x, in, out, flag); }
static int tcopy(MPI_Datatype t, int k, void *x, void *in, void *out, int *flag) { return on_copy(1, t, k, x, in, out, flag); }

/* ---- steps ------------------------------------------------------------ */
static void new_keyval(int kind, int slot)
{
    struct kv *x = &kvs[kind][slot];
    *x = (struct kv){ kind, slot, 1, 0, kind < 2 ? (int)rnd(4) : 0, (int)rnd(4), (int)rnd(MAXK) };
    int rc = kind == 0 ? MPI_Comm_create_keyval(ccopy, cdel, &x->handle, x)
           : kind == 1 ? MPI_Type_create_keyval(tcopy, tdel, &x->handle, x)
                       : MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel, &x->handle, x);
    if (rc)
        FAIL("create_keyval kind %d: rc %d", kind, rc);
}

static void new_obj(int kind, int o)
{
    static char buf[8];
    void *h = NULL;
    if (kind == 0)
        MPI_Comm_dup(MPI_COMM_SELF, (MPI_Comm *)&h);
    else if (kind == 1)
        MPI_Type_dup(MPI_INT, (MPI_Datatype *)&h);
    else
        MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_SELF, (MPI_Win *)&h);
    objs[kind][o] = (struct obj){ h, 1, { 0 } };
}

static void dup_obj(int kind, int from, int o)
{
    void *h = NULL;
    npending = 0;
    int rc = kind == 0 ? MPI_Comm_dup((MPI_Comm)objs[kind][from].h, (MPI_Comm *)&h)
                       : MPI_Type_dup((MPI_Datatype)objs[kind][from].h, (MPI_Datatype *)&h);
    if (rc) {
        FAIL("dup kind %d: rc %d", kind, rc);
        return;
    }
    objs[kind][o] = (struct obj){ h, 1, { 0 } };
    for (int i = 0; i < npending; i++) {
        int nv = pending[i];
        vstate[nv] = 1;
        vobj[nv] = (short)o;
        objs[kind][o].attached[vkey[nv]] = nv;
    }
}

static void free_obj(int kind, int o)
{
    void *h = objs[kind][o].h;
    int rc = kind == 0 ? MPI_Comm_free((MPI_Comm *)&h) : kind == 1 ? MPI_Type_free((MPI_Datatype *)&h)
                                                                   : MPI_Win_free((MPI_Win *)&h);
    if (rc)
        FAIL("free kind %d obj %d: rc %d", kind, o, rc);
    for (int s = 0; s < MAXK; s++)
        if (objs[kind][o].attached[s])
            FAIL("free kind %d obj %d: value %d (slot %d) was never deleted", kind, o, objs[kind][o].attached[s], s);
    objs[kind][o].live = 0;
}

/* Every live keyval on every live object answers the model. */
static void check_all(void)
{
    for (int kind = 0; kind < NKIND; kind++)
        for (int o = 0; o < MAXO; o++) {
            if (!objs[kind][o].live)
                continue;
            for (int s = 0; s < MAXK; s++) {
                if (!kvs[kind][s].live)
                    continue;
                void *v = NULL;
                int flag = -1, want = objs[kind][o].attached[s];
                int rc = get_attr(kind, objs[kind][o].h, kvs[kind][s].handle, &v, &flag);
                if (rc || flag != (want != 0) || (want && v != (void *)(intptr_t)want))
                    FAIL("get kind %d obj %d slot %d: rc %d flag %d value %ld, want %d", kind, o, s, rc, flag,
                         (long)(intptr_t)v, want);
            }
        }
}

/* A freed keyval's slot is reused only once no attribute of it is left. */
static int slot_in_use(int kind, int s)
{
    for (int o = 0; o < MAXO; o++)
        if (objs[kind][o].live && objs[kind][o].attached[s])
            return 1;
    return 0;
}

static void one_step(void)
{
    int kind = (int)rnd(NKIND), o = (int)rnd(MAXO), s = (int)rnd(MAXK);
    struct obj *ob = &objs[kind][o];
    struct kv *x = &kvs[kind][s];
    switch (rnd(10)) {
    case 0:
        if (!x->live) {
            if (!slot_in_use(kind, s))
                new_keyval(kind, s);
        } else if (rnd(3) == 0) {
            int k = x->handle;
            if (free_keyval(kind, &k))
                FAIL("free_keyval kind %d slot %d (keyval %d)", kind, s, x->handle);
            x->live = 0;
        }
        break;
    case 1:
        if (!ob->live)
            new_obj(kind, o);
        else if (rnd(2) == 0)
            free_obj(kind, o);
        break;
    case 2:
        if (!ob->live && kind < 2) {
            int from = (int)rnd(MAXO);
            if (objs[kind][from].live)
                dup_obj(kind, from, o);
        }
        break;
    case 3:
    case 4:
        if (ob->live && x->live && delete_attr(kind, ob->h, x->handle))
            FAIL("delete_attr kind %d obj %d slot %d", kind, o, s);
        break;
    default:
        if (ob->live && x->live)
            do_set(kind, o, s);
        break;
    }
}

int main(int argc, char **argv)
{
    int rank;
    long steps;
    uint64_t seed = seeded_start(&argc, &argv, "ATTR_RANDOM_SEED", 20000, &steps, &rank);
    printf("attr_random: rank %d seed %llu (rerun: ATTR_RANDOM_SEED=%llu, or arguments %llu %ld)\n", rank,
           (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)seed, steps);
    state = seed * 0x9E3779B97F4A7C15ull + 1 + (uint64_t)rank;
    for (step = 0; step < steps && failures < 20; step++) {
        one_step();
        check_all();
    }
    /* the end: every object freed, then every keyval */
    for (int kind = 0; kind < NKIND; kind++)
        for (int o = 0; o < MAXO; o++)
            if (objs[kind][o].live)
                free_obj(kind, o);
    for (int kind = 0; kind < NKIND; kind++)
        for (int s = 0; s < MAXK; s++)
            if (kvs[kind][s].live) {
                int k = kvs[kind][s].handle;
                free_keyval(kind, &k);
                kvs[kind][s].live = 0;
            }
    for (int v = 1; v < nextv; v++)
        if (vstate[v] == 1 || vstate[v] == 3)
            FAIL("value %d (state %d, obj %d slot %d) never deleted", v, vstate[v], vobj[v], vkey[v]);
    MPI_Finalize();
    if (failures) {
        printf("attr_random: %d failures (seed %llu)\n", failures, (unsigned long long)seed);
        return 1;
    }
    printf("attr_random: OK (%d values)\n", nextv - 1);
    return 0;
}
