/*
 * copy.h -- copies of a few bytes, the size of tiny messages and of the
 * payloads that ride in a flag line.
 */
#ifndef CM_SHM_COPY_H
#define CM_SHM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy n bytes; up to 32 of them here with overlapping fixed-size moves.  A
 * tiny message's or collective's cost is a few dozen instructions, and
 * libc's memcpy call and size dispatch would be a good part of them. */
static inline void cm_copy_small(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n > 32) {
        memcpy(d, s, n);
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

#endif
