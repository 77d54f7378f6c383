/*
 * datatype.c -- the datatype table, predefined types, packing, size queries.
 * (Constructors of derived types: core/datatype_create.c.)
 */
#include "core/status.h"
#include "core/datatype.h"
#include "core/state.h"
#include "core/error.h"
#include "core/dt_basic.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_dt.h"
#include "fe_deprecated.h"
#include "fe_p2p.h"
#include "fe_ext.h"

#include <complex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>


struct cm_datatype **cm_dt_table;
int cm_dt_table_len;
static int table_cap;
/* MPI_THREAD_MULTIPLE: a slot's claim and release and the table's growth
 * (cm_dt_lookup takes no lock: the array grows by cm_table_grow, stored
 * before the length, as the request table does). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

void cm_dt_table_hold(int on)
{
    if (on)
        cm_mt_lock(&table_lock);
    else
        cm_mt_unlock(&table_lock);
}

/* Predefined types: sizes, layouts and names come from core/dt_basic.c (the
 * one table, core/dt_predefined.def).  long double carries 10 bytes of data
 * in 16; its size is still sizeof (as other MPIs do). */

MPI_Datatype cm_dt_register(struct cm_datatype *t)
{
    cm_mt_lock(&table_lock);
    CM_FAULT(mt_dt_slot);   /* another thread must not claim the same slot */
    int i = cm_table_claim((void ***)&cm_dt_table, &cm_dt_table_len, &table_cap, CM_DT_NUM_PREDEFINED, 256, t);
    cm_mt_unlock(&table_lock);
    return i < 0 ? MPI_DATATYPE_NULL : cm_dt_handle(i);
}

int cm_dt_init(void)
{
    table_cap = 256;
    cm_dt_table = calloc((size_t)table_cap, sizeof *cm_dt_table);
    if (!cm_dt_table)
        return MPI_ERR_NO_MEM;
    for (int h = 1; h < CM_DT_NUM_PREDEFINED; h++) {
        MPI_Datatype dt = cm_dt_handle(h);
        if (cm_dt_basic_missing(dt))
            continue; /* no object: lookups fail, errors say why */
        size_t extent = cm_dt_basic_extent(dt), val, idx_off;
        struct cm_datatype *t = calloc(1, sizeof *t);
        if (!t)
            return MPI_ERR_NO_MEM;
        t->predefined = 1;
        t->committed = 1;
        t->refcount = 1;
        t->basic = dt;
        t->sig_class = cm_dt_sig_class_of(dt);
        t->nbasic = 1;
        t->align = cm_dt_basic_align(dt);
        t->rep_count = 1;
        t->sig_rep = 1;
        t->extent = t->true_extent = (MPI_Aint)extent;
        t->size = cm_dt_basic_size(dt);
        strcpy(t->name, cm_dt_basic_name(dt));
        if (cm_dt_basic_pair_layout(dt, &val, &idx_off)) {
            /* value, hole, index (, hole): data size excludes the padding */
            size_t idx = t->size - val;
            t->true_extent = (MPI_Aint)(idx_off + idx);
            t->contig = 0;
            t->nblocks = 2;
            t->blocks = calloc(2, sizeof *t->blocks);
            if (!t->blocks)
                return MPI_ERR_NO_MEM;
            t->blocks[0] = (struct cm_dt_block){ 0, val, 0 };
            t->blocks[1] = (struct cm_dt_block){ (MPI_Aint)idx_off, idx, val };
        } else {
            t->contig = 1;
            t->nblocks = 1;
            t->blocks = calloc(1, sizeof *t->blocks);
            if (!t->blocks)
                return MPI_ERR_NO_MEM;
            t->blocks[0] = (struct cm_dt_block){ 0, t->size, 0 };
        }
        cm_dt_table[h] = t;
    }
    cm_dt_table_len = CM_DT_NUM_PREDEFINED;
    return MPI_SUCCESS;
}

void cm_dt_finalize(void)
{
    for (int i = 1; i < cm_dt_table_len; i++) {
        struct cm_datatype *t = cm_dt_table[i];
        if (!t)
            continue;
        /* everything goes: no reference counting needed */
        free(t->blocks);
        free(t->sig);
        free(t->contents);
        free(t);
    }
    free(cm_dt_table);
    cm_dt_table = NULL;
    cm_dt_table_len = table_cap = 0;
}

int cm_dt_live_count(void)
{
    int n = 0;
    cm_mt_lock(&table_lock);   /* MPI_T reads it while threads make types */
    for (int i = CM_DT_NUM_PREDEFINED; i < cm_dt_table_len; i++)
        n += cm_dt_table[i] != NULL;
    cm_mt_unlock(&table_lock);
    return n;
}

/* cm_dt_pack, cm_dt_unpack and the range versions: core/datatype_pack.c. */

void cm_dt_destroy(struct cm_datatype *t)
{
    cm_dt_free_contents(t);
    free(t->blocks);
    free(t->sig);
    free(t);
}

void cm_dt_retain(MPI_Datatype dt)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (t && !t->predefined)
        __atomic_fetch_add(&t->refcount, 1, __ATOMIC_RELAXED);
}

void cm_dt_release(MPI_Datatype dt)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || t->predefined)
        return;
    if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        cm_mt_lock(&table_lock);
        __atomic_store_n(&cm_dt_table[cm_dt_index(dt)], NULL, __ATOMIC_RELAXED);
        cm_mt_unlock(&table_lock);
        cm_dt_destroy(t); /* releases the types it was built from */
    }
}

int cm_dt_check(MPI_Comm comm, MPI_Datatype dt, const char *call, const char *argname)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t) {
        if (dt == MPI_DATATYPE_NULL)
            return cm_error(comm, MPI_ERR_TYPE, call, "%s is MPI_DATATYPE_NULL", argname);
        if (cm_dt_basic_missing(dt))
            return cm_error(comm, MPI_ERR_TYPE, call, "datatype %s (argument %s) %s", cm_dt_basic_name(dt), argname,
                            cm_dt_basic_missing(dt));
        return cm_error(comm, MPI_ERR_TYPE, call, "invalid datatype %ld (argument %s)", (long)(intptr_t)dt, argname);
    }
    if (!t->committed)
        return cm_error(comm, MPI_ERR_TYPE, call, "datatype %s (argument %s) is not committed",
                        t->name[0] ? t->name : "(derived)", argname);
    return MPI_SUCCESS;
}

int cm_dt_check_bytes(MPI_Comm comm, MPI_Count count, MPI_Datatype dt, const char *call, const char *argname)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || count <= 0)
        return MPI_SUCCESS;
    /* the bounds of count elements, as a contiguous type of them would have */
    __int128 e = t->extent, rest = (__int128)(count - 1) * e;
    __int128 lo = t->lb + (rest < 0 ? rest : 0), hi = t->lb + e + (rest > 0 ? rest : 0);
    __int128 span = (__int128)count * (e < 0 ? -e : e);
    if ((__int128)count * t->size <= INT64_MAX && span <= INT64_MAX && lo >= INT64_MIN && hi <= INT64_MAX)
        return MPI_SUCCESS;
    return cm_error(comm, MPI_ERR_COUNT, call,
                    "%s %lld of %s is more than MPI_Count can hold in bytes (size %zu bytes, extent %ld bytes)",
                    argname, (long long)count, t->name[0] ? t->name : "the derived datatype", t->size,
                    (long)t->extent);
}

static struct cm_datatype *dt_or_error(MPI_Datatype dt, const char *call)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t && cm_dt_basic_missing(dt))
        cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "datatype %s %s", cm_dt_basic_name(dt), cm_dt_basic_missing(dt));
    else if (!t)
        cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)dt);
    return t;
}

/* The size getters: MPI_UNDEFINED where the size passes max, the largest
 * value the caller's argument holds (MPI-4.1, MPI_TYPE_SIZE; a size past
 * INT64_MAX used to come out negative in the _x form). */
static inline __attribute__((always_inline)) int size_of(MPI_Datatype datatype, const char *call, size_t max, MPI_Count *size)
{
    struct cm_datatype *t = dt_or_error(datatype, call);
    if (!t)
        return MPI_ERR_TYPE;
    *size = t->size > max ? MPI_UNDEFINED : (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int cm_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count n;
    int rc = size_of(datatype, "MPI_Type_size", 0x7fffffff, &n);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int cm_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return size_of(datatype, "MPI_Type_size_x", (size_t)INT64_MAX, size);
}

/* The extent getters: the bounds (true_ext 0) or the true bounds, into the
 * MPI_Aint pair (lb non-NULL) or the MPI_Count pair of the _x forms. */
static int extents(MPI_Datatype datatype, const char *call, int true_ext, MPI_Aint *lb, MPI_Aint *extent,
                   MPI_Count *lb_x, MPI_Count *extent_x)
{
    struct cm_datatype *t = dt_or_error(datatype, call);
    if (!t)
        return MPI_ERR_TYPE;
    MPI_Aint l = true_ext ? t->true_lb : t->lb, e = true_ext ? t->true_extent : t->extent;
    if (lb) {
        *lb = l;
        *extent = e;
    } else {
        *lb_x = l;
        *extent_x = e;
    }
    return MPI_SUCCESS;
}

int cm_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return extents(datatype, "MPI_Type_get_extent", 0, lb, extent, NULL, NULL);
}

int cm_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extents(datatype, "MPI_Type_get_extent_x", 0, NULL, NULL, lb, extent);
}

int cm_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    return extents(datatype, "MPI_Type_get_true_extent", 1, true_lb, true_extent, NULL, NULL);
}

int cm_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return extents(datatype, "MPI_Type_get_true_extent_x", 1, NULL, NULL, true_lb, true_extent);
}

static int status_check(const MPI_Status *status, MPI_Datatype datatype, const char *call, struct cm_datatype **t)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    *t = cm_dt_lookup(datatype);
    if (!*t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)datatype);
    return MPI_SUCCESS;
}

/* Whole elements of t in the status's bytes, or -1 (MPI_UNDEFINED). */
static long long count_of(const struct cm_datatype *t, const MPI_Status *status)
{
    long long b = cm_status_bytes(status);
    if (t->size == 0)
        return b == 0 ? 0 : -1;
    return b % (long long)t->size ? -1 : b / (long long)t->size;
}

/* The int forms of the count getters: MPI_UNDEFINED where the count does
 * not fit (or was undefined already). */
static inline __attribute__((always_inline)) int int_count(int rc, MPI_Count c, int *count)
{
    if (rc == MPI_SUCCESS)
        *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
    return rc;
}

static inline __attribute__((always_inline)) int get_count(const MPI_Status *status, MPI_Datatype datatype, const char *call, MPI_Count *count)
{
    struct cm_datatype *t;
    int rc = status_check(status, datatype, call, &t);
    if (rc)
        return rc;
    long long n = count_of(t, status);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int cm_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_count(status, datatype, "MPI_Get_count_c", count);
}

int cm_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c = 0;
    int rc = get_count(status, datatype, "MPI_Get_count", &c);
    return int_count(rc, c, count);
}

int cm_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    struct cm_datatype *t;
    int rc = status_check(status, datatype, "MPI_Get_elements", &t);
    if (rc)
        return rc;
    /* Whole elements times their basic elements, plus the basic elements of
     * a partial one (walking the signature of a mixed type). */
    long long n = cm_dt_count_basic(t, (size_t)cm_status_bytes(status));
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int cm_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c = 0;
    int rc = cm_Get_elements_x(status, datatype, &c);
    return int_count(rc, c, count);
}

static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count, const char *call)
{
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld", (long)(intptr_t)datatype);
    if (count > 0 && t->nbasic) {
        /* whole elements of t, then the basic elements of a partial one */
        __int128 bytes = (__int128)(count / (long long)t->nbasic) * t->size +
                         cm_dt_bytes_of_basic(t, count % (long long)t->nbasic);
        if (bytes > INT64_MAX)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call,
                            "count %lld basic elements of %s is more than MPI_Count can hold in bytes",
                            (long long)count, t->name[0] ? t->name : "the derived datatype");
    }
    cm_status_set_bytes(status, cm_dt_bytes_of_basic(t, count));
    return MPI_SUCCESS;
}

int cm_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}

int cm_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}

int cm_Status_set_cancelled(MPI_Status *status, int flag)
{
    cm_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}

/* Derived types record their constructor (core/datatype_create.c); a type
 * without a record is predefined. */
int cm_dt_envelope_derived(const struct cm_datatype *t, int *ni, int *na, int *nd, int *combiner) __attribute__((weak));

int cm_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner)
{
    struct cm_datatype *t = dt_or_error(datatype, "MPI_Type_get_envelope");
    if (!t)
        return MPI_ERR_TYPE;
    if (t->predefined || !cm_dt_envelope_derived) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    return cm_dt_envelope_derived(t, num_integers, num_addresses, num_datatypes, combiner);
}

int cm_dt_bottom_check(MPI_Comm comm, const char *call, const char *what, const void *buf, int count,
                   const struct cm_datatype *t)
{
    MPI_Aint at = cm_dt_bottom_misuse(buf, count, t);
    if (at < 0)
        return MPI_SUCCESS;
    return cm_error(comm, MPI_ERR_BUFFER, call,
                    "%s is NULL (MPI_BOTTOM) but count is %d and the datatype's data starts at byte %ld: "
                    "only a datatype of absolute addresses (MPI_Get_address) can be used at MPI_BOTTOM",
                    what, count, (long)at);
}
