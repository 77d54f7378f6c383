/*
 * prof_types.c -- datatype sizes for "bytes = count * size", cached so that a
 * record does not cost a PMPI_Type_size call.  Type_free clears the cache
 * because a freed handle may come back as a different type.
 */
#include "prof_record.h"

#include <pthread.h>
#include <string.h>

cm_prof_type_slot_t cm_prof_types[CM_PROF_TYPE_SLOTS];
static pthread_mutex_t types_mu = PTHREAD_MUTEX_INITIALIZER;

int cm_prof_type_size_slow(MPI_Datatype t)
{
    int size = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0) return 0;
    uintptr_t k = CM_PROF_KEY(t);
    cm_prof_type_slot_t *s = &cm_prof_types[(k ^ (k >> 6)) & (CM_PROF_TYPE_SLOTS - 1)];
    if (!cm_prof_mt) {
        s->key = k;
        s->size = size;
        s->valid = 1;
        return size;
    }
    /* MPI_THREAD_MULTIPLE: a slot is filled once (key and size before valid)
     * and never overwritten, so a reader that sees it valid sees its size. */
    pthread_mutex_lock(&types_mu);
    if (!__atomic_load_n(&s->valid, __ATOMIC_RELAXED)) {
        s->key = k;
        s->size = size;
        __atomic_store_n(&s->valid, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&types_mu);
    return size;
}

void cm_prof_type_forget(void)
{
    memset(cm_prof_types, 0, sizeof cm_prof_types);
}

uint64_t cm_prof_status_bytes(const MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return 0;
    return (uint64_t)n;
}
