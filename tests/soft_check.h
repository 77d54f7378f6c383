/*
 * soft_check.h -- a CHECK that counts a failure in `failures` and goes on,
 * for the tests that report every failed check before they end (with a
 * non-zero status when `failures` is); tests/mpi/check.h's CHECK ends the
 * job at the first instead.
 *
 * Define SOFT_CHECK_NAME (a string: the test's name) before including it,
 * and SOFT_CHECK_RANK (an int expression, read where CHECK stands) where
 * the rank belongs in each message.  A message reads "NAME [rank R] FAIL file:line: text".
 */
#ifndef COREMPI_TESTS_SOFT_CHECK_H
#define COREMPI_TESTS_SOFT_CHECK_H

#include <stdio.h>

#ifndef SOFT_CHECK_RANK
#define SOFT_CHECK_RANK (-1)
#endif

static int failures;

static inline void soft_check_head(const char *file, int line, int rank)
{
    if (rank >= 0)
        fprintf(stderr, "%s rank %d: FAIL %s:%d: ", SOFT_CHECK_NAME, rank, file, line);
    else
        fprintf(stderr, "%s: FAIL %s:%d: ", SOFT_CHECK_NAME, file, line);
}

#define CHECK(cond, ...)                               \
    do {                                               \
        if (!(cond)) {                                 \
            soft_check_head(__FILE__, __LINE__, SOFT_CHECK_RANK); \
            fprintf(stderr, __VA_ARGS__);              \
            fputc('\n', stderr);                       \
            failures++;                                \
        }                                              \
    } while (0)

#endif
