/*
 * test_copy.c -- unit tests of the library's bulk copies (src/shm/copy.h)
 * and single-copy transfers (src/shm/cma.c): every skew around the 4 KiB
 * stall window, sizes around the vector loop's and the bounce's edges, and
 * overlapping moves.  The process reads and writes itself through
 * process_vm_readv/writev, as the library's own probe does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/copy.h"
#include "shm/cma.h"

#define ROOM (3u << 20)

static const size_t sizes[] = { 0, 1, 31, 2047, 2048, 4096 + 7, 64 * 1024 - 1, 64 * 1024 + 4096 + 3,
                                (1u << 20) + 5 };
static const long skews[] = { 0, 1, 16, 31, 32, 33, 48, 4096 + 16, -16, -4096 + 8 };

static char *src_mem, *dst_mem;

static void fill(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(seed * 131u + i * 7u + (i >> 9));
}

/* Source at a fixed page offset, destination skewed from it; guard bytes
 * around the destination must survive. */
static void check_copy(void (*copy)(void *, const void *, size_t))
{
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ki = 0; ki < sizeof skews / sizeof skews[0]; ki++) {
            size_t n = sizes[si];
            char *s = src_mem + 8192 + 16;
            char *d = dst_mem + 8192 + 16 + skews[ki];
            fill(s, n, (unsigned)(si * 16 + ki));
            memset(d - 64, 0x5a, n + 128);
            copy(d, s, n);
            assert_memory_equal(d, s, n);
            for (int g = 1; g <= 64; g++) {
                assert_int_equal((unsigned char)d[-g], 0x5a);
                assert_int_equal((unsigned char)d[n + (size_t)g - 1], 0x5a);
            }
        }
}

static void copy_plain(void *d, const void *s, size_t n) { cm_copy(d, s, n); }
static void copy_small(void *d, const void *s, size_t n) { cm_copy_small(d, s, n); }
static void copy_unskewed(void *d, const void *s, size_t n) { cm_copy_unskewed(d, s, n); }

static void cma_read_self(void *d, const void *s, size_t n)
{
    assert_int_equal(cm_cma_read(getpid(), d, (uint64_t)(uintptr_t)s, n), n);
}

static void cma_write_self(void *d, const void *s, size_t n)
{
    assert_int_equal(cm_cma_write(getpid(), (uint64_t)(uintptr_t)d, s, n), n);
}

static void test_skew_window(void **state)
{
    (void)state;
    char *base = src_mem + 4096;
    assert_false(cm_copy_skewed(base, base));
    assert_true(cm_copy_skewed(base + 1, base));
    assert_true(cm_copy_skewed(base + 31, base));
    assert_false(cm_copy_skewed(base + 32, base));
    assert_true(cm_copy_skewed(base + 4096 + 16, base));
    assert_false(cm_copy_skewed(base - 16, base));      /* behind the source: no stall */
    assert_true(cm_copy_skewed(base - 4096 + 8, base)); /* 8 past the previous page multiple */
}

static void test_copy(void **state) { (void)state; check_copy(copy_plain); }
static void test_copy_small(void **state) { (void)state; check_copy(copy_small); }
static void test_copy_vector_loop(void **state) { (void)state; check_copy(copy_unskewed); }
static void test_cma_read(void **state) { (void)state; check_copy(cma_read_self); }
static void test_cma_write(void **state) { (void)state; check_copy(cma_write_self); }

/* cm_move keeps memmove's meaning when the buffers overlap either way. */
static void test_move_overlap(void **state)
{
    (void)state;
    size_t n = 100000;
    char *ref = malloc(n + 64);
    assert_non_null(ref);
    for (long shift = -40; shift <= 40; shift += 8) {
        char *s = src_mem + 4096 + 64;
        fill(s - 64, n + 128, (unsigned)(shift + 100));
        memcpy(ref, s, n);
        cm_move(s + shift, s, n);
        assert_memory_equal(s + shift, ref, n);
    }
    free(ref);
}

/* A refused transfer reports how far it got instead of pretending. */
static void test_cma_refused(void **state)
{
    (void)state;
    char buf[4096];
    assert_int_equal(cm_cma_read(getpid(), buf, 8 /* unmapped */, sizeof buf), 0);
    assert_int_equal(cm_cma_read(getpid(), buf + 16, 8, sizeof buf - 16), 0);
}

int main(void)
{
    src_mem = aligned_alloc(4096, ROOM);
    dst_mem = aligned_alloc(4096, ROOM);
    if (!src_mem || !dst_mem)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skew_window),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_copy_small),
        cmocka_unit_test(test_copy_vector_loop),
        cmocka_unit_test(test_move_overlap),
        cmocka_unit_test(test_cma_read),
        cmocka_unit_test(test_cma_write),
        cmocka_unit_test(test_cma_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(src_mem);
    free(dst_mem);
    return rc;
}
