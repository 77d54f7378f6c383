/*
 * copy.h -- the library's data copies: a few bytes (tiny messages, payloads
 * that ride in a flag line) and bulk data that must not meet the
 * "rep movsb" 4 KiB-alias stall (copy.c).
 */
#ifndef CM_SHM_COPY_H
#define CM_SHM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies of at least this many bytes can be slowed by the stall below:
 * glibc's memcpy uses "rep movsb" from 4 KiB on with AVX2. */
#define CM_COPY_SKEW_MIN 2048

/* True when dst - src is 1..31 bytes past a multiple of 4 KiB.  On AMD Zen
 * (this machine's EPYC) "rep movsb" then runs at 2-3 GB/s instead of
 * 35-60 (memcpy of 8-256 KiB timed at each skew): every store lands just ahead of
 * a load with the same page offset.  glibc only avoids 1..63 bytes past a
 * multiple of 4 GiB, an Intel case.  Two heap blocks of a page-multiple size
 * allocated one after the other are 16 bytes past such a multiple -- the
 * usual send and receive buffers of a program. */
static inline int cm_copy_skewed(const void *dst, const void *src)
{
    return (((uintptr_t)dst - (uintptr_t)src) & 4095u) - 1u < 31u;
}

/* Copy without the stall: a vector loop where memcpy would hit it. */
void cm_copy_unskewed(void *dst, const void *src, size_t n);

/* Copy with non-temporal stores (the destination bypasses the caches). */
void cm_copy_stream(void *dst, const void *src, size_t n);

/* memcpy with non-temporal stores: the destination goes to memory without
 * first being read into the cache, and evicts nothing on the way.  For
 * outputs larger than the caches can keep (shm/copy.c). */
void cm_copy_nt(void *dst, const void *src, size_t n);

/* memcpy for message and collective data (no overlap). */
static inline void cm_copy(void *dst, const void *src, size_t n)
{
    if (n >= CM_COPY_SKEW_MIN && cm_copy_skewed(dst, src))
        cm_copy_unskewed(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* Copy n bytes; up to 32 of them here with overlapping fixed-size moves.  A
 * tiny message's or collective's cost is a few dozen instructions, and
 * libc's memcpy call and size dispatch would be a good part of them. */
static inline void cm_copy_small(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n > 32) {
        cm_copy(d, s, n);
    } else if (n >= 16) {
        char a[16], b[16];
        __builtin_memcpy(a, s, 16);
        __builtin_memcpy(b, s + n - 16, 16);
        __builtin_memcpy(d, a, 16);
        __builtin_memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* memmove for the same: buffers that may overlap (a user's, in place); a
 * tiny one in line (the root's own block of a tiny scatter, say). */
static inline void cm_move(void *dst, const void *src, size_t n)
{
    if ((uintptr_t)dst - (uintptr_t)src >= n && (uintptr_t)src - (uintptr_t)dst >= n)
        cm_copy_small(dst, src, n);
    else
        memmove(dst, src, n);
}

#endif
