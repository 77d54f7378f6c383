/*
 * attr.c -- keyvals and communicator attributes, the predefined attributes,
 * and the standard's null/dup callback functions.
 *
 * A keyval lives as long as the user's handle OR any attribute made with it:
 * MPI_Comm_free_keyval only drops the user's reference, so a communicator that
 * still carries the attribute can run its callbacks later (MPI 4.0, 7.7.2).
 *
 * Keyvals 1..MPI_LASTUSEDCODE are the predefined attributes; they are not
 * stored on any communicator but answered from static ints, readable on every
 * communicator (get_attr returns a pointer to the int, as the standard says).
 */
#include "core/attr.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"

#include <stdlib.h>
#include <string.h>

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

#define FIRST_USER_KEYVAL 16

struct keyval {
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra;
    int refs;          /* user handle (until freed) + attributes using it */
    int user_freed;
};

struct attr {
    int keyval;
    void *value;
    struct attr *next; /* list in the order attributes were first set */
};

static struct keyval **keyvals; /* index = keyval handle */
static int nkeyvals, keyvals_cap;

static int tag_ub = CM_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_is_global = 1;
static int universe_size, appnum = 0, lastusedcode = MPI_ERR_LASTCODE;

static int *predefined(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;
    case MPI_IO: return &io;
    /* One machine, one CLOCK_MONOTONIC: every rank's MPI_Wtime agrees. */
    case MPI_WTIME_IS_GLOBAL: return &wtime_is_global;
    case MPI_UNIVERSE_SIZE: universe_size = cm_g.size; return &universe_size;
    /* The index of this rank's context on mpirun's MPMD line (0 for a lone
     * program or a singleton), MPI-4.1 11.10.3; mpirun sets COREMPI_APPNUM. */
    case MPI_APPNUM: appnum = getenv("COREMPI_APPNUM") ? atoi(getenv("COREMPI_APPNUM")) : 0; return &appnum;
    case MPI_LASTUSEDCODE: return &lastusedcode;
    default: return NULL;
    }
}

static struct keyval *keyval_lookup(int k)
{
    return k >= FIRST_USER_KEYVAL && k < nkeyvals ? keyvals[k] : NULL;
}

static void keyval_unref(int k)
{
    struct keyval *kv = keyvals[k];
    if (--kv->refs == 0) {
        free(kv);
        keyvals[k] = NULL;
    }
}

static struct cm_comm *user_comm(MPI_Comm comm, const char *call, int *rc)
{
    cm_check_initialized(call);
    struct cm_comm *c = cm_comm_user_lookup(comm);
    *rc = c ? MPI_SUCCESS
            : cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL%s"
                                                                                 : "invalid communicator%s", "");
    return c;
}

static struct attr **find(struct cm_comm *c, int keyval)
{
    struct attr **p = (struct attr **)&c->attrs;
    while (*p && (*p)->keyval != keyval)
        p = &(*p)->next;
    return p;
}

/* Run the delete callback of *p and unlink it; on a callback error nothing changes. */
static int remove_attr(struct cm_comm *c, struct attr **p)
{
    struct attr *a = *p;
    struct keyval *kv = keyvals[a->keyval];
    if (kv->delete_fn) {
        int rc = kv->delete_fn(c->handle, a->keyval, a->value, kv->extra);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *p = a->next;
    keyval_unref(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

/* ---- hooks for communicator creation / destruction ------------------ */

int cm_attr_copy_all(struct cm_comm *oldc, struct cm_comm *newc)
{
    struct attr **tail = (struct attr **)&newc->attrs;
    for (struct attr *a = oldc->attrs; a; a = a->next) {
        struct keyval *kv = keyvals[a->keyval];
        void *out = NULL;
        int flag = 0;
        int rc = kv->copy_fn ? kv->copy_fn(oldc->handle, a->keyval, kv->extra, a->value, &out, &flag) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) {
            /* The copies already made are real (they may hold references): delete them properly. */
            cm_attr_delete_all(newc);
            return rc;
        }
        if (!flag)
            continue;
        struct attr *n = malloc(sizeof *n);
        if (!n) {
            cm_attr_delete_all(newc);
            return MPI_ERR_NO_MEM;
        }
        *n = (struct attr){ a->keyval, out, NULL };
        kv->refs++;
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

int cm_attr_delete_all(struct cm_comm *c)
{
    /* Delete the most recently set first: later attributes may depend on earlier ones. */
    while (c->attrs) {
        struct attr **last = (struct attr **)&c->attrs;
        while ((*last)->next)
            last = &(*last)->next;
        int rc = remove_attr(c, last);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- MPI calls ------------------------------------------------------ */

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    static const char call[] = "MPI_Comm_create_keyval";
    CM_ENTER(Comm_create_keyval);
    cm_check_initialized(call);
    if (!comm_keyval)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "comm_keyval is NULL");
    struct keyval *kv = calloc(1, sizeof *kv);
    if (!kv)
        return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
    *kv = (struct keyval){ comm_copy_attr_fn, comm_delete_attr_fn, extra_state, 1, 0 };
    int k = FIRST_USER_KEYVAL;
    while (k < nkeyvals && keyvals[k])
        k++;
    if (k >= keyvals_cap) {
        int cap = keyvals_cap ? 2 * keyvals_cap : 64;
        struct keyval **t = realloc(keyvals, (size_t)cap * sizeof *t);
        if (!t) {
            free(kv);
            return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
        }
        memset(t + keyvals_cap, 0, (size_t)(cap - keyvals_cap) * sizeof *t);
        keyvals = t;
        keyvals_cap = cap;
    }
    keyvals[k] = kv;
    if (k >= nkeyvals)
        nkeyvals = k + 1;
    *comm_keyval = k;
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    static const char call[] = "MPI_Comm_free_keyval";
    CM_ENTER(Comm_free_keyval);
    cm_check_initialized(call);
    if (!comm_keyval)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "comm_keyval is NULL");
    int k = *comm_keyval;
    if (predefined(k))
        return cm_error(MPI_COMM_SELF, MPI_ERR_KEYVAL, call, "keyval %d is predefined and cannot be freed", k);
    struct keyval *kv = keyval_lookup(k);
    if (!kv || kv->user_freed)
        return cm_error(MPI_COMM_SELF, MPI_ERR_KEYVAL, call, "invalid keyval %d", k);
    kv->user_freed = 1;
    keyval_unref(k);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* A user keyval the caller may still use by handle. */
static int check_user_keyval(MPI_Comm comm, const char *call, int k, const char *what)
{
    if (predefined(k))
        return cm_error(comm, MPI_ERR_KEYVAL, call, "keyval %d is a predefined attribute, which cannot be %s", k, what);
    struct keyval *kv = keyval_lookup(k);
    if (!kv || kv->user_freed)
        return cm_error(comm, MPI_ERR_KEYVAL, call, "invalid keyval %d", k);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Comm_set_attr";
    CM_ENTER(Comm_set_attr);
    int rc;
    struct cm_comm *c = user_comm(comm, call, &rc);
    if (!c)
        return rc;
    if ((rc = check_user_keyval(comm, call, comm_keyval, "set")))
        return rc;
    struct attr **p = find(c, comm_keyval);
    if (*p) {
        /* Replacing a value deletes the old one first (MPI 4.0, 7.7.2). */
        struct keyval *kv = keyvals[comm_keyval];
        if (kv->delete_fn && (rc = kv->delete_fn(comm, comm_keyval, (*p)->value, kv->extra)) != MPI_SUCCESS)
            return cm_error(comm, rc, call, "the delete callback of keyval %d failed with code %d", comm_keyval, rc);
        (*p)->value = attribute_val;
        return MPI_SUCCESS;
    }
    struct attr *a = malloc(sizeof *a);
    if (!a)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    *a = (struct attr){ comm_keyval, attribute_val, NULL };
    keyvals[comm_keyval]->refs++;
    *p = a;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Comm_get_attr";
    CM_ENTER(Comm_get_attr);
    int rc;
    struct cm_comm *c = user_comm(comm, call, &rc);
    if (!c)
        return rc;
    if (!attribute_val || !flag)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", flag ? "attribute_val" : "flag");
    int *pre = predefined(comm_keyval);
    if (pre) {
        *(void **)attribute_val = pre;
        *flag = 1;
        return MPI_SUCCESS;
    }
    /* A keyval the user freed still names the attributes made with it until they go. */
    if (!keyval_lookup(comm_keyval))
        return cm_error(comm, MPI_ERR_KEYVAL, call, "invalid keyval %d", comm_keyval);
    struct attr *a = *find(c, comm_keyval);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    static const char call[] = "MPI_Comm_delete_attr";
    CM_ENTER(Comm_delete_attr);
    int rc;
    struct cm_comm *c = user_comm(comm, call, &rc);
    if (!c)
        return rc;
    if (predefined(comm_keyval))
        return cm_error(comm, MPI_ERR_KEYVAL, call, "keyval %d is a predefined attribute, which cannot be deleted",
                        comm_keyval);
    if (!keyval_lookup(comm_keyval))
        return cm_error(comm, MPI_ERR_KEYVAL, call, "invalid keyval %d", comm_keyval);
    struct attr **p = find(c, comm_keyval);
    if (!*p) /* nothing attached: nothing to delete (MPICH and Open MPI agree) */
        return MPI_SUCCESS;
    if ((rc = remove_attr(c, p)) != MPI_SUCCESS)
        return cm_error(comm, rc, call, "the delete callback of keyval %d failed with code %d", comm_keyval, rc);
    return MPI_SUCCESS;
}

/* ---- predefined callbacks (functions, declared in mpi.h) ------------ */

int MPI_COMM_NULL_COPY_FN(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_TYPE_DUP_FN(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type, (void)keyval, (void)value, (void)extra;
    return MPI_SUCCESS;
}
