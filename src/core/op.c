/*
 * op.c -- the reduction-operation handle table, MPI_Op_create/free/commutative,
 * and cm_op_apply, the one entry point the collectives call.
 *
 * User ops live in a table indexed by handle - CM_OP_NUM_PREDEFINED that grows
 * by doubling; a freed slot is reused by the next MPI_Op_create once nothing
 * retains it.  A mutex guards the table because MPI_THREAD_MULTIPLE programs
 * may create ops while another thread reduces; the user function itself is
 * called outside the lock (it may be slow, and may call MPI).
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include "core/op.h"
#include "core/dt_basic.h"
#include "core/datatype.h"
#include "core/error.h"

#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_create_c = PMPI_Op_create_c
#pragma weak MPI_Op_free = PMPI_Op_free
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

struct cm_user_op {
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;  /* Op_create_c: exactly one of fn, fn_c is set */
    int commute;
    int live;      /* created and not freed by the user */
    int refs;      /* retains by pending operations; the slot is reused only at 0 */
};

static pthread_mutex_t cm_op_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_user_op *cm_user_ops;
static int cm_user_ops_cap;

#define CM_OP_NAME(n, b) [CM_OPI_MPI_##n] = "MPI_" #n,
static const char *const cm_op_names[CM_OP_NUM_PREDEFINED] = {
    [CM_OPI_MPI_OP_NULL] = "MPI_OP_NULL", CM_OP_PREDEFINED_LIST(CM_OP_NAME)
};
#undef CM_OP_NAME

/* The slot of a user op handle, or NULL (caller holds the lock). */
static struct cm_user_op *cm_user_slot(MPI_Op op)
{
    int i = cm_op_index(op);
    if (i < CM_OP_NUM_PREDEFINED || i - CM_OP_NUM_PREDEFINED >= cm_user_ops_cap)
        return NULL;
    struct cm_user_op *u = &cm_user_ops[i - CM_OP_NUM_PREDEFINED];
    return (u->live || u->refs > 0) ? u : NULL;
}

/* Copy of a usable user op (live, or freed but still retained); 0 if none. */
static int cm_user_get(MPI_Op op, struct cm_user_op *out)
{
    pthread_mutex_lock(&cm_op_lock);
    struct cm_user_op *u = cm_user_slot(op);
    if (u)
        *out = *u;
    pthread_mutex_unlock(&cm_op_lock);
    return u != NULL;
}

int cm_op_is_valid(MPI_Op op)
{
    struct cm_user_op u;
    return cm_op_is_predefined(op) || (cm_user_get(op, &u) && u.live);
}

int cm_op_is_usable(MPI_Op op)
{
    struct cm_user_op u;
    return cm_op_is_predefined(op) || cm_user_get(op, &u);
}

int cm_op_is_commutative(MPI_Op op)
{
    struct cm_user_op u;
    if (cm_op_is_predefined(op))
        return 1;
    return cm_user_get(op, &u) ? u.commute != 0 : 0;
}

int cm_op_allowed(MPI_Op op, MPI_Datatype basic)
{
    struct cm_user_op u;
    if (cm_op_is_predefined(op))
        return cm_op_predefined_kernel(op, basic) != NULL;
    return cm_user_get(op, &u);
}

const char *cm_op_name(MPI_Op op)
{
    struct cm_user_op u;
    int i = cm_op_index(op);
    if (i >= 0 && i < CM_OP_NUM_PREDEFINED)
        return cm_op_names[i];
    return cm_user_get(op, &u) ? "user-defined operation" : "invalid operation";
}

/* Extent of one element of type, for stepping through user-op chunks. */
static size_t cm_op_type_extent(MPI_Datatype type)
{
    if (cm_dt_is_basic(type))
        return cm_dt_basic_extent(type);
    const struct cm_datatype *t = cm_dt_lookup(type);
    return (t && t->extent > 0) ? (size_t)t->extent : 0;
}

/* core/state.c's (state.h); weak: the unit tests build this file alone. */
unsigned cm_user_code_begins(void) __attribute__((weak));
void cm_user_code_ends(unsigned blocked) __attribute__((weak));

static void apply_user(const struct cm_user_op *u, MPI_Datatype type, const void *in, void *inout, size_t n,
                       size_t extent)
{
    if (u->fn_c) {
        MPI_Count len = (MPI_Count)n;
        MPI_Datatype dt = type;
        u->fn_c((void *)in, inout, &len, &dt);
        return;
    }
    /* MPI_User_function takes an int count: call it in chunks of INT_MAX. */
    const char *src = in;
    char *dst = inout;
    while (n > 0) {
        int len = n > INT_MAX ? INT_MAX : (int)n;
        MPI_Datatype dt = type;
        u->fn((void *)src, dst, &len, &dt);
        n -= (size_t)(n > INT_MAX ? INT_MAX : n);
        src += (size_t)INT_MAX * extent;
        dst += (size_t)INT_MAX * extent;
    }
}

int cm_op_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, size_t n)
{
    if (cm_op_is_predefined(op)) {
        cm_op_kernel_fn k = cm_op_predefined_kernel(op, type);
        if (!k)
            return MPI_ERR_OP;
        if (n)
            k(in, inout, n);
        return MPI_SUCCESS;
    }

    struct cm_user_op u;
    if (!cm_user_get(op, &u))
        return MPI_ERR_OP;
    size_t extent = 0;
    if (!u.fn_c && n > INT_MAX && (extent = cm_op_type_extent(type)) == 0)
        return MPI_ERR_TYPE;
    if (n) {
        unsigned blocked = cm_user_code_begins ? cm_user_code_begins() : 0;
        apply_user(&u, type, in, inout, n, extent);
        if (cm_user_code_ends)
            cm_user_code_ends(blocked);
    }
    return MPI_SUCCESS;
}

void cm_op_retain(MPI_Op op)
{
    if (cm_op_index(op) < CM_OP_NUM_PREDEFINED)
        return; /* predefined or null: every nonblocking collective passes here, skip the lock */
    pthread_mutex_lock(&cm_op_lock);
    struct cm_user_op *u = cm_user_slot(op);
    if (u)
        u->refs++;
    pthread_mutex_unlock(&cm_op_lock);
}

void cm_op_release(MPI_Op op)
{
    if (cm_op_index(op) < CM_OP_NUM_PREDEFINED)
        return;
    pthread_mutex_lock(&cm_op_lock);
    struct cm_user_op *u = cm_user_slot(op);
    if (u && u->refs > 0)
        u->refs--;
    pthread_mutex_unlock(&cm_op_lock);
}

int cm_op_live_count(void)
{
    int n = 0;
    pthread_mutex_lock(&cm_op_lock);
    for (int i = 0; i < cm_user_ops_cap; i++)
        n += cm_user_ops[i].live || cm_user_ops[i].refs > 0;
    pthread_mutex_unlock(&cm_op_lock);
    return n;
}

void cm_op_finalize(void)
{
    pthread_mutex_lock(&cm_op_lock);
    free(cm_user_ops);
    cm_user_ops = NULL;
    cm_user_ops_cap = 0;
    pthread_mutex_unlock(&cm_op_lock);
}

/* A free slot's handle (growing the table), or MPI_OP_NULL when out of memory. */
static MPI_Op cm_user_alloc(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute)
{
    MPI_Op h = MPI_OP_NULL;
    pthread_mutex_lock(&cm_op_lock);
    int i;
    for (i = 0; i < cm_user_ops_cap; i++)
        if (!cm_user_ops[i].live && cm_user_ops[i].refs == 0)
            break;
    if (i == cm_user_ops_cap && cm_user_ops_cap < INT_MAX / 2 - CM_OP_NUM_PREDEFINED) {
        int cap = cm_user_ops_cap ? cm_user_ops_cap * 2 : 16;
        struct cm_user_op *t = realloc(cm_user_ops, (size_t)cap * sizeof *t);
        if (t) {
            for (int j = cm_user_ops_cap; j < cap; j++)
                t[j] = (struct cm_user_op){ 0 };
            cm_user_ops = t;
            cm_user_ops_cap = cap;
        }
    }
    if (i < cm_user_ops_cap) {
        cm_user_ops[i] = (struct cm_user_op){ .fn = fn, .fn_c = fn_c, .commute = commute != 0, .live = 1 };
        h = cm_op_handle(CM_OP_NUM_PREDEFINED + i);
    }
    pthread_mutex_unlock(&cm_op_lock);
    return h;
}

static int op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op)
{
    if (!fn && !fn_c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "user function is NULL");
    if (!op)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "op argument is NULL");
    MPI_Op h = cm_user_alloc(fn, fn_c, commute);
    if (h == MPI_OP_NULL)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory for a new operation");
    *op = h;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

/* A large-count user function gets the whole count at once. */
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int PMPI_Op_free(MPI_Op *op)
{
    if (!op)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Op_free", "op argument is NULL");
    int pi = cm_op_index(*op);
    if (pi >= 0 && pi < CM_OP_NUM_PREDEFINED)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free",
                        "%s is predefined and cannot be freed", cm_op_names[pi]);
    int ok = 0;
    pthread_mutex_lock(&cm_op_lock);
    struct cm_user_op *u = cm_user_slot(*op);
    if (u && u->live) {
        u->live = 0;
        ok = 1;
    }
    pthread_mutex_unlock(&cm_op_lock);
    if (!ok)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free",
                        "invalid operation handle %ld", (long)(intptr_t)(*op));
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    if (!commute)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Op_commutative",
                        "commute argument is NULL");
    if (!cm_op_is_valid(op))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative",
                        "invalid operation handle %ld", (long)(intptr_t)op);
    *commute = cm_op_is_commutative(op);
    return MPI_SUCCESS;
}
