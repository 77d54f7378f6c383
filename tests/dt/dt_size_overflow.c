/*
 * dt_size_overflow.c -- sizes and counts too large for their argument.
 *
 * MPI_Type_size, MPI_Type_size_x, MPI_Get_count and MPI_Get_elements(_x) set
 * their output to MPI_UNDEFINED when it cannot hold the value (MPI-4.1), never
 * to a wrapped or negative number.  Types far larger than memory are legal
 * descriptions: a vector at stride 0 repeats a 4 GiB type without needing
 * the memory, so sizes of 2^62, 2^63, 3 * 2^62 and 2^64 bytes are built
 * here, and the exact limits (INT_MAX bytes, one more) around them.
 * Get_elements_x/_c and Get_count_c of types of more than 2^32 bytes count
 * every basic element of a status (issue 32: 1073741825 for 4294967292).
 */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int fails;
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

/* Type_size and Type_size_x of t against the true size, given as a
 * long double so that sizes past 2^64 can be stated. */
static void check_size(const char *name, MPI_Datatype t, long double bytes)
{
    int size = 0;
    MPI_Count size_x = 0;
    MPI_Type_size(t, &size);
    MPI_Type_size_x(t, &size_x);
    int want = bytes > INT_MAX ? MPI_UNDEFINED : (int)bytes;
    MPI_Count want_x = bytes > (long double)INT64_MAX ? MPI_UNDEFINED : (MPI_Count)bytes;
    EXPECT(size == want, "%s (%.0Lf bytes): MPI_Type_size gave %d, want %d", name, bytes, size, want);
    EXPECT(size_x == want_x, "%s (%.0Lf bytes): MPI_Type_size_x gave %lld, want %lld", name, bytes,
           (long long)size_x, (long long)want_x);
}

/* Element and count queries of a status against types above 2^32 bytes: the
 * status holds n ints (MPI_Status_set_elements_x, what a receive of them
 * would leave), asked in elements of a type of 2^32 - 4 ints (16 GiB) and of
 * gib4 (2^30 ints). */
static void expect_counts(MPI_Count ints, MPI_Datatype t, const char *name, MPI_Count elements, MPI_Count count)
{
    MPI_Status st;
    MPI_Count e_x = -1, e_c = -1, c_c = -1;
    MPI_Status_set_elements_x(&st, MPI_INT, ints);
    MPI_Get_elements_x(&st, t, &e_x);
    MPI_Get_elements_c(&st, t, &e_c);
    MPI_Get_count_c(&st, t, &c_c);
    EXPECT(e_x == elements && e_c == elements && c_c == count,
           "%lld ints in %s: Get_elements_x %lld, Get_elements_c %lld, Get_count_c %lld; want %lld, %lld, %lld",
           (long long)ints, name, (long long)e_x, (long long)e_c, (long long)c_c, (long long)elements,
           (long long)elements, (long long)count);
}

static void big_elements(MPI_Datatype gib4)
{
    const MPI_Count n = 4294967292LL; /* 2^32 - 4 */
    MPI_Datatype big;
    MPI_Type_contiguous_c(n, MPI_INT, &big);
    MPI_Type_commit(&big);
    expect_counts(n, big, "2^32 - 4 ints", n, 1);
    expect_counts(n / 2, big, "2^32 - 4 ints", n / 2, MPI_UNDEFINED);
    expect_counts(3 * n, big, "2^32 - 4 ints", 3 * n, 3);
    expect_counts(4294967300LL, gib4, "2^30 ints", 4294967300LL, MPI_UNDEFINED);
    expect_counts(1LL << 32, gib4, "2^30 ints", 1LL << 32, 4);
    /* the status set in elements of the type itself */
    MPI_Status st;
    MPI_Count got = -1;
    int small = 0;
    MPI_Status_set_elements_x(&st, big, n);
    MPI_Get_elements_x(&st, big, &got);
    EXPECT(got == n, "Status_set_elements_x(big, %lld) then Get_elements_x gave %lld", (long long)n, (long long)got);
    MPI_Get_count_c(&st, MPI_INT, &got);
    EXPECT(got == n, "Status_set_elements_x(big, %lld) then Get_count_c(MPI_INT) gave %lld", (long long)n,
           (long long)got);
    MPI_Get_elements(&st, big, &small);
    EXPECT(small == MPI_UNDEFINED, "Get_elements (int) of %lld elements gave %d", (long long)n, small);
    MPI_Type_free(&big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype gib4, e62, e63, e62x3, e64, intmax, intmax1;
    MPI_Type_contiguous(1 << 30, MPI_INT, &gib4);
    check_size("4 GiB", gib4, 4294967296.0L);
    MPI_Type_create_hvector(1 << 30, 1, 0, gib4, &e62);
    check_size("2^62", e62, 4611686018427387904.0L);
    MPI_Type_create_hvector(2, 1, 0, e62, &e63);
    check_size("2^63", e63, 9223372036854775808.0L);
    MPI_Type_create_hvector(3, 1, 0, e62, &e62x3);
    check_size("3 * 2^62", e62x3, 3 * 4611686018427387904.0L);
    MPI_Type_create_hvector(4, 1, 0, e62, &e64);
    check_size("2^64", e64, 18446744073709551616.0L);
    MPI_Type_commit(&e63);
    check_size("2^63 committed", e63, 9223372036854775808.0L);
    MPI_Type_contiguous(INT_MAX, MPI_BYTE, &intmax);
    check_size("INT_MAX", intmax, (long double)INT_MAX);
    MPI_Type_create_hvector(2, 1, 0, intmax, &intmax1);
    check_size("2 * INT_MAX", intmax1, 2.0L * INT_MAX);

    /* A status of 8 * INT_MAX bytes: counts in bytes do not fit an int. */
    MPI_Status st;
    int count = 0;
    MPI_Count count_x = 0;
    MPI_Status_set_elements(&st, MPI_DOUBLE, INT_MAX);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT(count == INT_MAX, "Get_count of INT_MAX doubles gave %d", count);
    MPI_Get_count(&st, MPI_BYTE, &count);
    EXPECT(count == MPI_UNDEFINED, "Get_count in bytes of 8 * INT_MAX bytes gave %d, want MPI_UNDEFINED", count);
    MPI_Get_elements(&st, MPI_BYTE, &count);
    EXPECT(count == MPI_UNDEFINED, "Get_elements in bytes of 8 * INT_MAX bytes gave %d, want MPI_UNDEFINED", count);
    MPI_Get_elements_x(&st, MPI_BYTE, &count_x);
    EXPECT(count_x == 8 * (MPI_Count)INT_MAX, "Get_elements_x in bytes gave %lld", (long long)count_x);
    MPI_Get_elements(&st, MPI_DOUBLE, &count);
    EXPECT(count == INT_MAX, "Get_elements of INT_MAX doubles gave %d", count);

    big_elements(gib4);

    MPI_Datatype *all[] = { &gib4, &e62, &e63, &e62x3, &e64, &intmax, &intmax1 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        MPI_Type_free(all[i]);
    MPI_Finalize();
    printf(fails ? "dt_size_overflow: %d failures\n" : "dt_size_overflow: all passed\n", fails);
    return fails != 0;
}
