/*
 * dt_range.c -- the piecewise pack API (cm_dt_pack_range / cm_dt_unpack_range,
 * core/datatype.h) against whole-message packing: every type is packed in
 * pieces of awkward sizes (1, 3, 7, 4096+5 bytes, random), starting anywhere,
 * and the pieces must equal the corresponding bytes of cm_dt_pack; unpacking
 * the pieces must rebuild the buffer exactly.  Linked against the static
 * library to reach the internal API; runs as a singleton.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"

static int fails;
#define EXPECT(c, ...) do { if (!(c)) { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); fails++; } } while (0)

static void check_type(const char *name, MPI_Datatype h, int count)
{
    MPI_Type_commit(&h);
    const struct cm_datatype *t = cm_dt_lookup(h);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(h, &lb, &ext);
    MPI_Type_get_true_extent(h, &tlb, &text);
    /* span of count elements, with room for negative offsets */
    MPI_Aint lo = tlb < tlb + (count - 1) * ext ? tlb : tlb + (count - 1) * ext;
    MPI_Aint hi = (tlb + text > tlb + text + (count - 1) * ext ? tlb + text : tlb + text + (count - 1) * ext);
    size_t span = (size_t)(hi - lo) + 1, bytes = (size_t)count * t->size;
    char *mem = malloc(span), *origin = mem - lo;
    for (size_t i = 0; i < span; i++)
        mem[i] = (char)(i * 37 + 11);
    char *whole = malloc(bytes + 1), *piece = malloc(bytes + 1);
    cm_dt_pack(origin, count, t, whole);
    const size_t sizes[] = { 1, 3, 7, 4101, 0 };
    for (int k = 0; k < 5; k++) {
        size_t off = 0;
        while (off < bytes) {
            size_t len = sizes[k] ? sizes[k] : (size_t)(rand() % 977) + 1;
            size_t n = cm_dt_pack_range(origin, count, t, off, piece, len);
            size_t want = len < bytes - off ? len : bytes - off;
            EXPECT(n == want, "%s: piece at %zu: %zu bytes, want %zu", name, off, n, want);
            EXPECT(memcmp(piece, whole + off, n) == 0, "%s: piece at %zu of %zu differs", name, off, len);
            off += n;
            if (!n)
                break;
        }
    }
    /* unpack in random pieces into a scrambled copy: must equal the original on the typemap */
    char *mem2 = malloc(span), *origin2 = mem2 - lo, *check = malloc(bytes + 1);
    memset(mem2, 0x5a, span);
    for (size_t off = 0; off < bytes;) {
        size_t len = (size_t)(rand() % 300) + 1;
        off += cm_dt_unpack_range(whole + off, len, origin2, count, t, off);
    }
    cm_dt_pack(origin2, count, t, check);
    EXPECT(memcmp(check, whole, bytes) == 0, "%s: unpacked pieces differ", name);
    EXPECT(cm_dt_pack_range(origin, count, t, bytes, piece, 10) == 0, "%s: a range past the end is empty", name);
    free(mem);
    free(mem2);
    free(whole);
    free(piece);
    free(check);
    MPI_Type_free(&h);
    printf("ok %s\n", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype t, u;
    MPI_Type_vector(100, 3, 7, MPI_INT, &t);
    check_type("vector", t, 50);
    MPI_Type_vector(33, 2, -5, MPI_DOUBLE, &t);
    check_type("vector_negative", t, 20);
    MPI_Type_create_struct(3, (int[]){ 1, 2, 1 }, (MPI_Aint[]){ 0, 8, 24 },
                           (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE, MPI_CHAR }, &t);
    check_type("struct", t, 1000);
    MPI_Type_indexed(3, (int[]){ 2, 5, 1 }, (int[]){ 9, 0, -4 }, MPI_SHORT, &t);
    check_type("indexed", t, 777);
    MPI_Type_vector(3, 1, 2, MPI_INT, &u);
    MPI_Type_contiguous(50, u, &t);
    MPI_Type_free(&u);
    check_type("contiguous_of_vector", t, 9);
    MPI_Type_create_subarray(3, (int[]){ 10, 12, 14 }, (int[]){ 4, 5, 6 }, (int[]){ 2, 3, 4 }, MPI_ORDER_C,
                             MPI_FLOAT, &t);
    check_type("subarray", t, 3);
    MPI_Type_contiguous(1000, MPI_INT, &t);
    check_type("contiguous", t, 5);
    MPI_Finalize();
    if (fails)
        printf("dt_range: %d failures\n", fails);
    else
        printf("dt_range: all passed\n");
    return fails != 0;
}
