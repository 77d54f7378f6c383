/*
 * attr_callbacks.c -- attribute callbacks that make MPI calls on the object
 * whose attributes they belong to (MPI-4.1 7.7: callbacks may call MPI).
 *
 *   - a delete callback deleting the other attributes of its object, when
 *     run by MPI_X_delete_attr, MPI_X_free, a replacing MPI_X_set_attr and
 *     MPI_Finalize (SELF and WORLD), for communicators, datatypes, windows;
 *   - a copy callback deleting its own attribute and the next one;
 *   - a delete callback setting a new attribute and freeing keyvals while its
 *     object is freed;
 *   - MPI_Finalize: SELF's callbacks run first, last set first, with
 *     MPI_Finalized false and collectives usable.
 * Before the fix the list was unlinked through nodes the callbacks had freed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c, ...)                                                                                       \
    do {                                                                                                    \
        if (!(c)) {                                                                                         \
            failures++;                                                                                     \
            printf("FAIL line %d: ", __LINE__);                                                             \
            printf(__VA_ARGS__);                                                                            \
            printf("\n");                                                                                   \
        }                                                                                                   \
    } while (0)

/* One kind of object, seen through generic operations. */
struct kind {
    const char *name;
    int (*set)(void *obj, int k, void *v);
    int (*del)(void *obj, int k);
    int (*get)(void *obj, int k, void *v, int *flag);
};
static int c_set(void *o, int k, void *v) { return MPI_Comm_set_attr(*(MPI_Comm *)o, k, v); }
static int c_del(void *o, int k) { return MPI_Comm_delete_attr(*(MPI_Comm *)o, k); }
static int c_get(void *o, int k, void *v, int *f) { return MPI_Comm_get_attr(*(MPI_Comm *)o, k, v, f); }
static int t_set(void *o, int k, void *v) { return MPI_Type_set_attr(*(MPI_Datatype *)o, k, v); }
static int t_del(void *o, int k) { return MPI_Type_delete_attr(*(MPI_Datatype *)o, k); }
static int t_get(void *o, int k, void *v, int *f) { return MPI_Type_get_attr(*(MPI_Datatype *)o, k, v, f); }
static int w_set(void *o, int k, void *v) { return MPI_Win_set_attr(*(MPI_Win *)o, k, v); }
static int w_del(void *o, int k) { return MPI_Win_delete_attr(*(MPI_Win *)o, k); }
static int w_get(void *o, int k, void *v, int *f) { return MPI_Win_get_attr(*(MPI_Win *)o, k, v, f); }
static const struct kind kinds[3] = { { "comm", c_set, c_del, c_get }, { "type", t_set, t_del, t_get },
                                      { "win", w_set, w_del, w_get } };

/* What a delete callback does, from its extra_state. */
struct act {
    const struct kind *kind;
    int *others;      /* keyvals it deletes from its object ... */
    int nothers;
    int set_key;      /* ... a keyval it sets on its object (-1: none) ... */
    int *free_key;    /* ... and a keyval it frees (NULL: none) */
    int deleted;      /* times it ran */
};
static int order[16], norder;

static int on_delete(void *obj, int k, void *val, struct act *a)
{
    (void)k;
    a->deleted++;
    if (norder < 16)
        order[norder++] = (int)(long)val;
    for (int i = 0; i < a->nothers; i++)
        if (a->kind->del(obj, a->others[i]) != MPI_SUCCESS)
            return MPI_ERR_OTHER;
    if (a->set_key >= 0 && a->kind->set(obj, a->set_key, (void *)7L) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    if (a->free_key && *a->free_key != MPI_KEYVAL_INVALID) {
        int kk = *a->free_key;
        int rc = a->kind == &kinds[0] ? MPI_Comm_free_keyval(&kk)
               : a->kind == &kinds[1] ? MPI_Type_free_keyval(&kk) : MPI_Win_free_keyval(&kk);
        *a->free_key = MPI_KEYVAL_INVALID;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
static int cdel(MPI_Comm c, int k, void *v, void *x) { return on_delete(&c, k, v, x); }
static int tdel(MPI_Datatype t, int k, void *v, void *x) { return on_delete(&t, k, v, x); }
static int wdel(MPI_Win w, int k, void *v, void *x) { return on_delete(&w, k, v, x); }

static int make_keyval(int kind, struct act *a, int *k)
{
    a->kind = &kinds[kind];
    a->set_key = -1;
    if (kind == 0)
        return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cdel, k, a);
    if (kind == 1)
        return MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel, k, a);
    return MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel, k, a);
}

static void free_keyval(int kind, int *k)
{
    if (*k == MPI_KEYVAL_INVALID)
        return;
    if (kind == 0)
        MPI_Comm_free_keyval(k);
    else if (kind == 1)
        MPI_Type_free_keyval(k);
    else
        MPI_Win_free_keyval(k);
}

/* A fresh object of the kind in obj (a dup of WORLD, of MPI_INT, a window on SELF). */
static void make_obj(int kind, void *obj)
{
    static char buf[8];
    if (kind == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, obj);
    else if (kind == 1)
        MPI_Type_dup(MPI_INT, obj);
    else
        MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_SELF, obj);
}

static int free_obj(int kind, void *obj)
{
    return kind == 0 ? MPI_Comm_free(obj) : kind == 1 ? MPI_Type_free(obj) : MPI_Win_free(obj);
}

/* Three attributes 1, 2, 3; the delete callback of `who` deletes the other
 * two (the MPICH attrdelete pattern), then `how` removes the attributes:
 * 0 delete_attr(who), 1 free the object, 2 set_attr(who) again. */
static void cascade(int kind, int who, int how)
{
    union { MPI_Comm c; MPI_Datatype t; MPI_Win w; } obj;
    struct act a[3] = { { 0 } };
    int k[3], oth[3][2];
    make_obj(kind, &obj);
    for (int i = 0; i < 3; i++)
        make_keyval(kind, &a[i], &k[i]);
    for (int i = 0; i < 3; i++) {
        oth[i][0] = k[(i + 1) % 3];
        oth[i][1] = k[(i + 2) % 3];
        kinds[kind].set(&obj, k[i], (void *)(long)(i + 1));
    }
    a[who].others = oth[who];
    a[who].nothers = 2;
    norder = 0;
    int rc = how == 0 ? kinds[kind].del(&obj, k[who]) : how == 1 ? free_obj(kind, &obj)
           : kinds[kind].set(&obj, k[who], (void *)9L);
    CHECK(rc == MPI_SUCCESS, "%s cascade who %d how %d: rc %d", kinds[kind].name, who, how, rc);
    for (int i = 0; i < 3; i++)
        CHECK(a[i].deleted == 1, "%s cascade who %d how %d: callback %d ran %d times", kinds[kind].name, who, how, i,
              a[i].deleted);
    if (how == 2) {
        void *v = NULL;
        int flag = 0;
        kinds[kind].get(&obj, k[who], &v, &flag);
        CHECK(flag && v == (void *)9L, "%s replace: value %p flag %d", kinds[kind].name, v, flag);
        a[who].nothers = 0;
    }
    if (how != 1)
        free_obj(kind, &obj);
    for (int i = 0; i < 3; i++)
        free_keyval(kind, &k[i]);
}

/* While the object is freed, the newest attribute's callback sets a new
 * attribute and frees the keyval of the oldest: every value is deleted once. */
static void set_and_free_keyval(int kind)
{
    union { MPI_Comm c; MPI_Datatype t; MPI_Win w; } obj;
    struct act a[3] = { { 0 } };
    int k[3];
    make_obj(kind, &obj);
    for (int i = 0; i < 3; i++)
        make_keyval(kind, &a[i], &k[i]);
    kinds[kind].set(&obj, k[0], (void *)1L);
    kinds[kind].set(&obj, k[1], (void *)2L);
    a[1].set_key = k[2];
    a[1].free_key = &k[0];
    norder = 0;
    int rc = free_obj(kind, &obj);
    CHECK(rc == MPI_SUCCESS, "%s set+free keyval: rc %d", kinds[kind].name, rc);
    CHECK(a[0].deleted == 1 && a[1].deleted == 1 && a[2].deleted == 1, "%s set+free keyval: ran %d %d %d",
          kinds[kind].name, a[0].deleted, a[1].deleted, a[2].deleted);
    CHECK(norder == 3 && order[0] == 2 && order[1] == 7 && order[2] == 1, "%s set+free keyval: order %d %d %d",
          kinds[kind].name, order[0], order[1], order[2]);
    for (int i = 0; i < 3; i++)
        free_keyval(kind, &k[i]);
}

/* Copy callbacks: the first deletes its own attribute and the next one from
 * the old communicator (or datatype) while the dup walks its list. */
static int kcopy[3];
static int copy_common(void *obj, const struct kind *kd, int k, void *in, void *out, int *flag)
{
    if (k == kcopy[0]) {
        kd->del(obj, kcopy[0]);
        kd->del(obj, kcopy[1]);
    }
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int ccopy(MPI_Comm c, int k, void *x, void *in, void *out, int *flag)
{
    (void)x;
    return copy_common(&c, &kinds[0], k, in, out, flag);
}
static int tcopy(MPI_Datatype t, int k, void *x, void *in, void *out, int *flag)
{
    (void)x;
    return copy_common(&t, &kinds[1], k, in, out, flag);
}

static void copy_deletes(int kind)
{
    union { MPI_Comm c; MPI_Datatype t; } obj, dup;
    make_obj(kind, &obj);
    for (int i = 0; i < 3; i++) {
        if (kind == 0)
            MPI_Comm_create_keyval(ccopy, MPI_COMM_NULL_DELETE_FN, &kcopy[i], NULL);
        else
            MPI_Type_create_keyval(tcopy, MPI_TYPE_NULL_DELETE_FN, &kcopy[i], NULL);
        kinds[kind].set(&obj, kcopy[i], (void *)(long)(i + 1));
    }
    int rc = kind == 0 ? MPI_Comm_dup(obj.c, &dup.c) : MPI_Type_dup(obj.t, &dup.t);
    CHECK(rc == MPI_SUCCESS, "%s dup with deleting copy callback: rc %d", kinds[kind].name, rc);
    for (int i = 0; i < 3; i++) {
        void *v = NULL;
        int flag = 0;
        kinds[kind].get(&dup, kcopy[i], &v, &flag);
        /* attribute 1 was copied before its callback deleted it, 2 was gone before its turn */
        CHECK(flag == (i != 1), "%s dup: attribute %d copied %d", kinds[kind].name, i + 1, flag);
        kinds[kind].get(&obj, kcopy[i], &v, &flag);
        CHECK(flag == (i == 2), "%s dup: attribute %d still on the old object %d", kinds[kind].name, i + 1, flag);
    }
    free_obj(kind, &obj);
    free_obj(kind, &dup);
    for (int i = 0; i < 3; i++)
        free_keyval(kind, &kcopy[i]);
}

/* MPI_Finalize: SELF's callbacks (set 1, 2, 3; the third deletes the first)
 * run first, last set first, with MPI_Finalized false and MPI usable; then
 * WORLD's, where the newest deletes the others. */
static struct act fin_self[3], fin_world[3];
static int fin_finalized = -1, fin_sum = -1, fin_others[2], fin_world_others[2];
static int self_del(MPI_Comm c, int k, void *v, void *x)
{
    if (v == (void *)3L) {
        MPI_Finalized(&fin_finalized);
        int one = 1;
        MPI_Allreduce(&one, &fin_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    return cdel(c, k, v, x);
}

static void finalize_setup(void)
{
    int k[3], kw[3];
    for (int i = 0; i < 3; i++) {
        fin_self[i].kind = &kinds[0];
        fin_self[i].set_key = -1;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &k[i], &fin_self[i]);
        MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *)(long)(i + 1));
        make_keyval(0, &fin_world[i], &kw[i]);
        MPI_Comm_set_attr(MPI_COMM_WORLD, kw[i], (void *)(long)(11 + i));
    }
    fin_others[0] = k[0];
    fin_self[2].others = fin_others;
    fin_self[2].nothers = 1;
    fin_world_others[0] = kw[0];
    fin_world_others[1] = kw[1];
    fin_world[2].others = fin_world_others;
    fin_world[2].nothers = 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int kind = 0; kind < 3; kind++)
        for (int who = 0; who < 3; who++)
            for (int how = 0; how < 3; how++)
                cascade(kind, who, how);
    for (int kind = 0; kind < 3; kind++)
        set_and_free_keyval(kind);
    copy_deletes(0);
    copy_deletes(1);
    finalize_setup();
    norder = 0;
    MPI_Finalize();
    CHECK(fin_finalized == 0, "MPI_Finalized in SELF's delete callback: %d", fin_finalized);
    CHECK(fin_sum == size, "MPI_Allreduce in SELF's delete callback: %d", fin_sum);
    CHECK(norder == 6 && order[0] == 3 && order[1] == 1 && order[2] == 2 && order[3] == 13 && order[4] == 11 &&
              order[5] == 12,
          "Finalize callbacks order %d: %d %d %d %d %d %d", norder, order[0], order[1], order[2], order[3], order[4],
          order[5]);
    for (int i = 0; i < 3; i++)
        CHECK(fin_self[i].deleted == 1 && fin_world[i].deleted == 1, "Finalize: callback %d ran %d/%d times", i,
              fin_self[i].deleted, fin_world[i].deleted);
    if (failures)
        return 1;
    printf("attr_callbacks: OK\n");
    return 0;
}
