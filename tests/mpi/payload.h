/*
 * payload.h -- reproducible message contents for the MPI-level tests.
 *
 * A payload is a byte stream derived only from a 64-bit key (built from
 * sender, receiver, sequence number, ...), so a receiver can regenerate what
 * it should have got and find the first wrong byte without any side channel.
 */
#ifndef COREMPI_TESTS_PAYLOAD_H
#define COREMPI_TESTS_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t payload_mix(uint64_t x)
{
    /* splitmix64 finaliser: every input bit changes about half the output bits. */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static inline uint64_t payload_key(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return payload_mix(payload_mix(payload_mix(payload_mix(a) ^ b) ^ c) ^ d);
}

/* The i-th 8-byte word of the stream of key. */
static inline uint64_t payload_word(uint64_t key, size_t i)
{
    return payload_mix(key + 0x632be59bd9b4e019ULL * (uint64_t)(i + 1));
}

static inline void payload_fill(void *buf, size_t n, uint64_t key)
{
    unsigned char *p = buf;
    size_t words = n / 8, i;
    for (i = 0; i < words; i++) {
        uint64_t w = payload_word(key, i);
        memcpy(p + 8 * i, &w, 8);
    }
    if (n % 8) {
        uint64_t w = payload_word(key, words);
        memcpy(p + 8 * words, &w, n % 8);
    }
}

/* Index of the first byte that differs from the stream of key, or n if none. */
static inline size_t payload_mismatch(const void *buf, size_t n, uint64_t key)
{
    const unsigned char *p = buf;
    size_t words = n / 8, i, j;
    for (i = 0; i < words; i++) {
        uint64_t w = payload_word(key, i);
        if (memcmp(p + 8 * i, &w, 8) != 0)
            break;
    }
    for (j = 8 * i; j < n; j++) {
        uint64_t w = payload_word(key, j / 8);
        if (p[j] != ((const unsigned char *)&w)[j % 8])
            return j;
    }
    return n;
}

#endif
