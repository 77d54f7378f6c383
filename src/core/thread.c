/* thread.c -- the thread level (thread.h). */
#include "core/thread.h"
#include "core/state.h"
#include "shm/fault.h"

#include <stdlib.h>
#include <string.h>

int cm_mt;

int cm_thread_level_for(int required)
{
    if (required < MPI_THREAD_SINGLE)
        return MPI_THREAD_SINGLE;
    if (required < MPI_THREAD_MULTIPLE)
        return required;
    /* Experimental until every function is safe: only on request. */
    return cm_config_flag(COREMPI_THREAD_MULTIPLE, 0) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
}

/* Arrays replaced by cm_table_grow: a lookup in another thread may still
 * read one.  Reachable from here, so leak checkers do not report them. */
struct retired { struct retired *next; void *array; };
static struct retired *retired;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;

void *cm_table_grow(void *old, size_t old_bytes, size_t new_bytes)
{
    char *t = malloc(new_bytes);
    struct retired *r = old ? malloc(sizeof *r) : NULL;
    if (!t || (old && !r)) {
        free(t);
        free(r);
        return NULL;
    }
    if (old_bytes)
        memcpy(t, old, old_bytes);
    memset(t + old_bytes, 0, new_bytes - old_bytes);
    if (old) {
        pthread_mutex_lock(&retired_lock);
        r->array = old;
        r->next = retired;
        retired = r;
        pthread_mutex_unlock(&retired_lock);
    }
    return t;
}

int cm_table_claim(void ***arr, int *len, int *cap, int first, int mincap, void *obj)
{
    int n = *len < first ? first : *len;
    for (int i = first; i < *len; i++)
        if (!(*arr)[i]) {
            CM_FAULT(mt_table_claim);   /* the caller's lock keeps others from this slot */
            __atomic_store_n(&(*arr)[i], obj, __ATOMIC_RELEASE);
            return i;
        }
    if (n >= *cap) {
        int c = *cap ? 2 * *cap : mincap;
        while (c <= n)
            c *= 2;
        void **t = cm_table_grow(*arr, (size_t)*cap * sizeof *t, (size_t)c * sizeof *t);
        if (!t)
            return -1;
        __atomic_store_n(arr, t, __ATOMIC_RELEASE);
        *cap = c;
    }
    CM_FAULT(mt_table_claim);
    __atomic_store_n(&(*arr)[n], obj, __ATOMIC_RELEASE);
    __atomic_store_n(len, n + 1, __ATOMIC_RELEASE);
    return n;
}
