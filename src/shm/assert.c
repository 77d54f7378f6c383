/* assert.c -- the report of a broken invariant (shm/assert.h; debug and sanitizer builds). */
#include "shm/assert.h"

#ifdef CM_ASSERTS
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void cm_assert_fail(const char *cond, const char *id, const char *file, int line)
{
    fprintf(stderr, "corempi: pid %d: invariant %s broken at %s:%d: %s\n", (int)getpid(), id, file, line, cond);
    abort();
}
#endif
