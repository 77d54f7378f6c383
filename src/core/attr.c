/*
 * attr.c -- keyvals and communicator attributes, the predefined attributes,
 * and the standard's null/dup callback functions.
 *
 * A keyval lives as long as the user's handle OR any attribute made with it:
 * MPI_Comm_free_keyval only drops the user's reference, so a communicator that
 * still carries the attribute can run its callbacks later (MPI 4.0, 7.7.2).
 *
 * Datatype keyvals and attributes (core/attr_type.c) share the keyval table
 * and the list code through struct cm_attr_obj; a keyval belongs to one kind
 * of object and is invalid for the other.
 *
 * MPI_THREAD_MULTIPLE: the keyval table and every object's list are under
 * one lock, `attr_lock`, held by the calls below except while a copy or
 * delete callback runs (callbacks may call MPI, and block: the code above
 * the callback already holds no pointer across one but the dying node and
 * a keyval it references).  Recursive: an error handler called with the
 * lock held (cm_error) may itself call an attribute function.
 *
 * The predefined attributes (keys 501..507, the standard ABI's values of
 * MPI_TAG_UB..MPI_UNIVERSE_SIZE, always by name here) are not
 * stored on any communicator but answered from static ints, readable on every
 * communicator (get_attr returns a pointer to the int, as the standard says).
 */
#include "core/attr.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_comm.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_USER_KEYVAL 16
/* The standard ABI's predefined keys are 501..507 (comm) and 601..605
 * (win): user keyvals never take a value of 500..699. */
#define CM_KEYVAL_RESERVED(k) ((k) >= 500 && (k) < 700)
#define CM_KEYVAL_RESERVED_END 700

/* One keyval serves one kind of object; its callbacks have that kind's
 * signature (the handle type differs), hence the unions. */
struct keyval {
    int kind;          /* CM_ATTR_COMM, CM_ATTR_TYPE or CM_ATTR_WIN */
    union { MPI_Comm_copy_attr_function *comm; MPI_Type_copy_attr_function *type; MPI_Win_copy_attr_function *win; } copy_fn;
    union { MPI_Comm_delete_attr_function *comm; MPI_Type_delete_attr_function *type; MPI_Win_delete_attr_function *win; } delete_fn;
    void *extra;
    int refs;          /* user handle (until freed) + attributes using it */
    int user_freed;
};

/* Callbacks may make any MPI call (MPI-4.1 7.7), including calls that set,
 * delete or free other attributes of the same object.  So no pointer into a
 * list is held across a callback: a node whose delete callback runs is marked
 * dying (the lookups skip it, nothing else frees it) and is found again by
 * its address afterwards; everything else is looked up again by keyval. */
struct attr {
    int keyval;
    int dying;         /* its delete callback is running */
    void *value;
    struct attr *next; /* list in the order attributes were set */
};

static pthread_mutex_t attr_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct keyval **keyvals; /* index = keyval handle */
static int nkeyvals, keyvals_cap;

static int tag_ub = CM_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_is_global = 1;
static int universe_size, appnum = 0, lastusedcode;

static const char *const kind_name[] = { "communicator", "datatype", "window" };
static const char *const kind_arg[] = { "comm", "type", "win" };

/* Predefined attributes exist on communicators only. */
static int *predefined(int kind, int keyval)
{
    if (kind != CM_ATTR_COMM)
        return NULL;
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;
    case MPI_IO: return &io;
    /* One machine, one CLOCK_MONOTONIC: every rank's MPI_Wtime agrees. */
    case MPI_WTIME_IS_GLOBAL: return &wtime_is_global;
    case MPI_UNIVERSE_SIZE: universe_size = cm_g.slots; return &universe_size;
    /* The index of this rank's context on mpirun's MPMD line (0 for a lone
     * program or a singleton), MPI-4.1 11.10.3; mpirun sets COREMPI_APPNUM. */
    case MPI_APPNUM: appnum = cm_config_int(COREMPI_APPNUM, 0); return &appnum;
    case MPI_LASTUSEDCODE: lastusedcode = cm_err_lastused(); return &lastusedcode;
    default: return NULL;
    }
}

static struct keyval *keyval_lookup(int kind, int k)
{
    return k >= FIRST_USER_KEYVAL && k < nkeyvals && keyvals[k] && keyvals[k]->kind == kind ? keyvals[k] : NULL;
}

static void keyval_unref(int k)
{
    struct keyval *kv = keyvals[k];
    if (--kv->refs == 0) {
        free(kv);
        keyvals[k] = NULL;
    }
}

/* The live (not dying) attribute of keyval, or NULL. */
static struct attr *find(const struct cm_attr_obj *o, int keyval)
{
    struct attr *a = *(struct attr **)o->attrs;
    while (a && (a->dying || a->keyval != keyval))
        a = a->next;
    return a;
}

/* Take node a out of o's list (a is in it) and free it. */
static void unlink_attr(const struct cm_attr_obj *o, struct attr *a)
{
    struct attr **p = (struct attr **)o->attrs;
    while (*p != a)
        p = &(*p)->next;
    *p = a->next;
    keyval_unref(a->keyval);
    free(a);
}

/* The predefined callbacks (MPI_COMM_DUP_FN, MPI_TYPE_NULL_DELETE_FN, ...)
 * are the constants 0 and 1 in the standard ABI, not functions: they are
 * recognised here and never called (the comparisons hold with corempi's
 * older function definitions too). */
typedef void (*cm_attr_any_fn)(void);
#define CM_ATTR_FN(f) ((cm_attr_any_fn)(f))

static int run_delete(const struct cm_attr_obj *o, int k, void *value)
{
    struct keyval *kv = keyvals[k];
    cm_attr_any_fn fn = o->kind == CM_ATTR_COMM ? CM_ATTR_FN(kv->delete_fn.comm)
                        : o->kind == CM_ATTR_WIN ? CM_ATTR_FN(kv->delete_fn.win) : CM_ATTR_FN(kv->delete_fn.type);
    if (!fn || fn == CM_ATTR_FN(MPI_COMM_NULL_DELETE_FN) || fn == CM_ATTR_FN(MPI_TYPE_NULL_DELETE_FN))
        return MPI_SUCCESS;
    int rc;
    cm_mt_unlock(&attr_lock);
    if (o->kind == CM_ATTR_COMM)
        rc = kv->delete_fn.comm(o->comm, k, value, kv->extra);
    else if (o->kind == CM_ATTR_WIN)
        rc = kv->delete_fn.win(o->win, k, value, kv->extra);
    else
        rc = kv->delete_fn.type(o->type, k, value, kv->extra);
    cm_mt_lock(&attr_lock);
    return rc;
}

/* The copy callback of attribute (k, in) of oldo: *flag 1 with *out to keep it. */
static int run_copy(const struct cm_attr_obj *oldo, const struct keyval *kv, int k, void *in, void **out, int *flag)
{
    cm_attr_any_fn fn = oldo->kind == CM_ATTR_COMM ? CM_ATTR_FN(kv->copy_fn.comm) : CM_ATTR_FN(kv->copy_fn.type);
    if (fn == CM_ATTR_FN(MPI_COMM_DUP_FN) || fn == CM_ATTR_FN(MPI_TYPE_DUP_FN)) {
        *out = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!fn || fn == CM_ATTR_FN(MPI_COMM_NULL_COPY_FN) || fn == CM_ATTR_FN(MPI_TYPE_NULL_COPY_FN))
        return MPI_SUCCESS;
    int rc;
    cm_mt_unlock(&attr_lock);
    if (oldo->kind == CM_ATTR_COMM)
        rc = kv->copy_fn.comm(oldo->comm, k, kv->extra, in, out, flag);
    else
        rc = kv->copy_fn.type(oldo->type, k, kv->extra, in, out, flag);
    cm_mt_lock(&attr_lock);
    return rc;
}

/* 1 when another live attribute has a's keyval (set while a was dying). */
static int set_again(const struct cm_attr_obj *o, const struct attr *a)
{
    for (struct attr *b = *(struct attr **)o->attrs; b; b = b->next)
        if (b != a && !b->dying && b->keyval == a->keyval)
            return 1;
    return 0;
}

/* Run the delete callback of a and unlink it; on a callback error a stays
 * (unless the callback set the keyval again: the newer value wins). */
static int remove_attr(const struct cm_attr_obj *o, struct attr *a)
{
    a->dying = 1;
    int rc = run_delete(o, a->keyval, a->value);
    a->dying = 0;
    if (rc == MPI_SUCCESS || set_again(o, a))
        unlink_attr(o, a);
    return rc;
}

/* ---- hooks for object creation / destruction ------------------------ */

/* The keyvals of o's live attributes, oldest first, each holding a keyval
 * reference (so a callback freeing the keyval leaves it valid); NULL with
 * *n 0 when there are none, NULL with *n -1 when out of memory. */
static int *snapshot(const struct cm_attr_obj *o, int *n)
{
    int len = 0;
    for (struct attr *a = *(struct attr **)o->attrs; a; a = a->next)
        len += !a->dying;
    *n = len;
    if (!len)
        return NULL;
    int *ks = malloc((size_t)len * sizeof *ks), i = 0;
    if (!ks) {
        *n = -1;
        return NULL;
    }
    for (struct attr *a = *(struct attr **)o->attrs; a; a = a->next)
        if (!a->dying) {
            ks[i++] = a->keyval;
            keyvals[a->keyval]->refs++;
        }
    return ks;
}

static void snapshot_free(int *ks, int n)
{
    for (int i = 0; i < n; i++)
        keyval_unref(ks[i]);
    free(ks);
}

/* Append (k, value) to the end of o's list. */
static int append(const struct cm_attr_obj *o, int k, void *value)
{
    struct attr *n = malloc(sizeof *n), **tail = (struct attr **)o->attrs;
    if (!n)
        return MPI_ERR_NO_MEM;
    while (*tail)
        tail = &(*tail)->next;
    *n = (struct attr){ k, 0, value, NULL };
    keyvals[k]->refs++;
    *tail = n;
    return MPI_SUCCESS;
}

static int obj_delete_all(const struct cm_attr_obj *o);

static int obj_copy_all(const struct cm_attr_obj *oldo, const struct cm_attr_obj *newo)
{
    /* The attributes of oldo as they were when the copy began; each is looked
     * up again before its callback, since an earlier callback may have
     * deleted it or changed its value. */
    int n, rc = MPI_SUCCESS;
    int *ks = snapshot(oldo, &n);
    if (n < 0)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct attr *a = find(oldo, ks[i]);
        void *out = NULL;
        int flag = 0;
        if (!a)
            continue;
        rc = run_copy(oldo, keyvals[ks[i]], ks[i], a->value, &out, &flag);
        if (rc == MPI_SUCCESS && flag)
            rc = append(newo, ks[i], out);
    }
    snapshot_free(ks, n);
    /* The copies already made are real (they may hold references): delete them properly. */
    if (rc != MPI_SUCCESS)
        obj_delete_all(newo);
    return rc;
}

static int obj_delete_all(const struct cm_attr_obj *o)
{
    /* Delete the most recently set first (LIFO, MPI-4.1 11.2.4): later
     * attributes may depend on earlier ones.  The list is walked again after
     * every callback, which may have set or deleted others. */
    for (;;) {
        struct attr *last = NULL;
        for (struct attr *a = *(struct attr **)o->attrs; a; a = a->next)
            if (!a->dying)
                last = a;
        if (!last)
            return MPI_SUCCESS;
        int rc = remove_attr(o, last);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

static struct cm_attr_obj comm_obj(struct cm_comm *c)
{
    return (struct cm_attr_obj){ CM_ATTR_COMM, c->handle, MPI_DATATYPE_NULL, &c->attrs, MPI_WIN_NULL };
}

int cm_attr_copy_all(struct cm_comm *oldc, struct cm_comm *newc)
{
    struct cm_attr_obj o = comm_obj(oldc), n = comm_obj(newc);
    return cm_attr_obj_copy_all(&o, &n);
}

int cm_attr_delete_all(struct cm_comm *c)
{
    struct cm_attr_obj o = comm_obj(c);
    return cm_attr_obj_delete_all(&o);
}

/* ---- the calls, for any kind of object ------------------------------- */

static int keyval_create(int kind, void (*copy_fn)(void), void (*delete_fn)(void), int *keyval, void *extra,
                        const char *call)
{
    if (!keyval)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s_keyval is NULL", kind_arg[kind]);
    struct keyval *kv = calloc(1, sizeof *kv);
    if (!kv)
        return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
    kv->kind = kind;
    kv->extra = extra;
    kv->refs = 1;
    if (kind == CM_ATTR_COMM) {
        kv->copy_fn.comm = (MPI_Comm_copy_attr_function *)copy_fn;
        kv->delete_fn.comm = (MPI_Comm_delete_attr_function *)delete_fn;
    } else if (kind == CM_ATTR_WIN) {  /* windows are never copied: copy_fn is kept, not run */
        kv->copy_fn.win = (MPI_Win_copy_attr_function *)copy_fn;
        kv->delete_fn.win = (MPI_Win_delete_attr_function *)delete_fn;
    } else {
        kv->copy_fn.type = (MPI_Type_copy_attr_function *)copy_fn;
        kv->delete_fn.type = (MPI_Type_delete_attr_function *)delete_fn;
    }
    int k = FIRST_USER_KEYVAL;
    while (k < nkeyvals && (keyvals[k] || CM_KEYVAL_RESERVED(k)))
        k++;
    if (CM_KEYVAL_RESERVED(k))
        k = CM_KEYVAL_RESERVED_END;
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
    *keyval = k;
    return MPI_SUCCESS;
}

static int keyval_free(int kind, int *keyval, const char *call)
{
    if (!keyval)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s_keyval is NULL", kind_arg[kind]);
    int k = *keyval;
    if (predefined(kind, k))
        return cm_error(MPI_COMM_SELF, MPI_ERR_KEYVAL, call, "keyval %d is predefined and cannot be freed", k);
    struct keyval *kv = keyval_lookup(kind, k);
    if (!kv || kv->user_freed)
        return cm_error(MPI_COMM_SELF, MPI_ERR_KEYVAL, call, "invalid %s keyval %d", kind_name[kind], k);
    kv->user_freed = 1;
    keyval_unref(k);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* The communicator errors are raised on (WORLD for other objects). */
static MPI_Comm err_comm(const struct cm_attr_obj *o)
{
    return o->kind == CM_ATTR_COMM ? o->comm : MPI_COMM_WORLD;
}

static int attr_set(const struct cm_attr_obj *o, int k, void *value, const char *call)
{
    MPI_Comm ec = err_comm(o);
    int rc;
    if (predefined(o->kind, k))
        return cm_error(ec, MPI_ERR_KEYVAL, call, "keyval %d is a predefined attribute, which cannot be set", k);
    struct keyval *kv = keyval_lookup(o->kind, k);
    if (!kv || kv->user_freed)
        return cm_error(ec, MPI_ERR_KEYVAL, call, "invalid %s keyval %d", kind_name[o->kind], k);
    /* Replacing a value deletes the old one first (MPI 4.0, 7.7.2); the new
     * one then counts as the latest set, for the LIFO order of deletion.  A
     * callback that sets the keyval again gets its value deleted in turn. */
    struct attr *a;
    kv->refs++; /* a callback may free the keyval: it stays valid for this call */
    while ((a = find(o, k)) != NULL && (rc = remove_attr(o, a)) == MPI_SUCCESS)
        ;
    if (!a)
        rc = append(o, k, value);
    keyval_unref(k);
    if (a)
        return cm_error(ec, rc, call, "the delete callback of keyval %d failed with code %d", k, rc);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cm_error(ec, MPI_ERR_NO_MEM, call, "out of memory");
}

static int attr_get(const struct cm_attr_obj *o, int k, void *value, int *flag, const char *call)
{
    MPI_Comm ec = err_comm(o);
    if (!value || !flag)
        return cm_error(ec, MPI_ERR_ARG, call, "%s is NULL", flag ? "attribute_val" : "flag");
    int *pre = predefined(o->kind, k);
    if (pre) {
        *(void **)value = pre;
        *flag = 1;
        return MPI_SUCCESS;
    }
    /* A keyval the user freed still names the attributes made with it until they go. */
    if (!keyval_lookup(o->kind, k))
        return cm_error(ec, MPI_ERR_KEYVAL, call, "invalid %s keyval %d", kind_name[o->kind], k);
    struct attr *a = find(o, k);
    *flag = a != NULL;
    if (a)
        *(void **)value = a->value;
    return MPI_SUCCESS;
}

static int attr_delete(const struct cm_attr_obj *o, int k, const char *call)
{
    MPI_Comm ec = err_comm(o);
    int rc;
    if (predefined(o->kind, k))
        return cm_error(ec, MPI_ERR_KEYVAL, call, "keyval %d is a predefined attribute, which cannot be deleted", k);
    if (!keyval_lookup(o->kind, k))
        return cm_error(ec, MPI_ERR_KEYVAL, call, "invalid %s keyval %d", kind_name[o->kind], k);
    struct attr *a = find(o, k);
    if (!a) /* nothing attached (or its deletion already running): nothing to delete */
        return MPI_SUCCESS;
    if ((rc = remove_attr(o, a)) != MPI_SUCCESS)
        return cm_error(ec, rc, call, "the delete callback of keyval %d failed with code %d", k, rc);
    return MPI_SUCCESS;
}

/* ---- the same under attr_lock (MPI_THREAD_MULTIPLE) ----------------- */

int cm_attr_obj_copy_all(const struct cm_attr_obj *oldo, const struct cm_attr_obj *newo)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = obj_copy_all(oldo, newo);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_obj_delete_all(const struct cm_attr_obj *o)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = obj_delete_all(o);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_keyval_create(int kind, void (*copy_fn)(void), void (*delete_fn)(void), int *keyval, void *extra,
                        const char *call)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = keyval_create(kind, copy_fn, delete_fn, keyval, extra, call);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_keyval_free(int kind, int *keyval, const char *call)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = keyval_free(kind, keyval, call);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_set(const struct cm_attr_obj *o, int k, void *value, const char *call)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = attr_set(o, k, value, call);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_get(const struct cm_attr_obj *o, int k, void *value, int *flag, const char *call)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = attr_get(o, k, value, flag, call);
    cm_mt_unlock(&attr_lock);
    return rc;
}

int cm_attr_delete(const struct cm_attr_obj *o, int k, const char *call)
{
    cm_mt_lock(&attr_lock);
    CM_FAULT(mt_attr);
    int rc = attr_delete(o, k, call);
    cm_mt_unlock(&attr_lock);
    return rc;
}

/* ---- communicator calls --------------------------------------------- */

int cm_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                          MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    static const char call[] = "MPI_Comm_create_keyval";
    cm_check_initialized(call);
    return cm_attr_keyval_create(CM_ATTR_COMM, (void (*)(void))comm_copy_attr_fn, (void (*)(void))comm_delete_attr_fn,
                                 comm_keyval, extra_state, call);
}

int cm_Comm_free_keyval(int *comm_keyval)
{
    static const char call[] = "MPI_Comm_free_keyval";
    cm_check_initialized(call);
    return cm_attr_keyval_free(CM_ATTR_COMM, comm_keyval, call);
}

int cm_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_set_attr", cm_comm_user_or_error, comm);
    struct cm_attr_obj o = comm_obj(c);
    return cm_attr_set(&o, comm_keyval, attribute_val, call);
}

int cm_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_get_attr", cm_comm_user_or_error, comm);
    struct cm_attr_obj o = comm_obj(c);
    return cm_attr_get(&o, comm_keyval, attribute_val, flag, call);
}

int cm_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_delete_attr", cm_comm_user_or_error, comm);
    struct cm_attr_obj o = comm_obj(c);
    return cm_attr_delete(&o, comm_keyval, call);
}

/* ---- predefined callbacks: functions before the standard ABI ------- */
#ifndef MPI_ABI_VERSION

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
#endif
