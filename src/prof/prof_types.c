/*
 * prof_types.c -- datatype sizes for "bytes = count * size", cached so that a
 * record does not cost a PMPI_Type_size call.  Type_free clears the cache
 * because a freed handle may come back as a different type.
 */
#include "prof_record.h"

#include <string.h>

cm_prof_type_slot_t cm_prof_types[CM_PROF_TYPE_SLOTS];

int cm_prof_type_size_slow(MPI_Datatype t)
{
    int size = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0) return 0;
    uintptr_t k = CM_PROF_KEY(t);
    cm_prof_type_slot_t *s = &cm_prof_types[(k ^ (k >> 6)) & (CM_PROF_TYPE_SLOTS - 1)];
    s->key = k;
    s->size = size;
    s->valid = 1;
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
