/*
 * malloc_tune.h -- allocator settings applied by MPI_Init (see malloc_tune.c).
 */
#ifndef CM_CORE_MALLOC_TUNE_H
#define CM_CORE_MALLOC_TUNE_H

/* Returns 1 when the allocator was tuned, 0 when left alone. */
int cm_malloc_tune(void);

#endif
