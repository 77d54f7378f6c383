/*
 * abi_ref_prog.c -- an MPI program that knows only the standard ABI.
 *
 * Compiled against the MPI Forum's header (../shared/abi/mpi.h, never
 * corempi's), linked with -lmpi_abi and run under corempi's mpirun: the
 * binary built elsewhere of docs/abi.md.  Each rank checks the ABI version,
 * the toint/fromint round trip, a ring exchange and a sum, then the values
 * the Forum corrected in October 2025, at run time: MPI_ERRORS_RETURN makes
 * a bad call return (a library with the old values aborts), the predefined
 * attributes MPI_APPNUM, MPI_UNIVERSE_SIZE and MPI_LASTUSEDCODE answer with
 * their own value, MPI_Type_create_f90_* report the MPI_COMBINER_F90_*
 * envelope, and MPI_DUP_FN / MPI_NULL_COPY_FN work with MPI_Keyval_create.
 * Prints "abi_ref_prog: ok" on rank 0; any mismatch prints a line and exits 1.
 */
#include <mpi.h>

#include <stdio.h>

static int rank = -1;

static int fail(const char *what)
{
    printf("abi_ref_prog: rank %d: %s\n", rank, what);
    fflush(stdout);
    return 1;
}

/* MPI_ERRORS_RETURN (0x143 since the correction): a send to a rank that
 * does not exist returns MPI_ERR_RANK instead of ending the job. */
static int errors_return(int size)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        return fail("MPI_Comm_set_errhandler(MPI_ERRORS_RETURN) failed");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &e);
    if (e != MPI_ERRORS_RETURN)
        return fail("MPI_Comm_get_errhandler does not give back MPI_ERRORS_RETURN");
    int one = 1, cls = -1;
    int rc = MPI_Send(&one, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_RANK)
        return fail("MPI_Send to a missing rank under MPI_ERRORS_RETURN did not return MPI_ERR_RANK");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return 0;
}

static int int_attr(int key, int *value)
{
    int *p = NULL, flag = 0;
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, key, &p, &flag) != MPI_SUCCESS || !flag || !p)
        return 0;
    *value = *p;
    return 1;
}

/* The predefined attributes by the Forum's keys: APPNUM 505 is 0 for the one
 * program on the line, UNIVERSE_SIZE 507 is at least the world, and
 * LASTUSEDCODE 506 follows a new error class. */
static int attributes(int size)
{
    int appnum = -1, universe = -1, last = -1, cls = -1;
    if (!int_attr(MPI_APPNUM, &appnum) || appnum != 0)
        return fail("MPI_APPNUM is not 0 for the only program");
    if (!int_attr(MPI_UNIVERSE_SIZE, &universe) || universe < size)
        return fail("MPI_UNIVERSE_SIZE is smaller than MPI_COMM_WORLD");
    if (MPI_Add_error_class(&cls) != MPI_SUCCESS)
        return fail("MPI_Add_error_class failed");
    if (!int_attr(MPI_LASTUSEDCODE, &last) || last < cls)
        return fail("MPI_LASTUSEDCODE is below the error class just added");
    int tag_ub = 0;
    if (!int_attr(MPI_TAG_UB, &tag_ub) || tag_ub < 32767)
        return fail("MPI_TAG_UB is below 32767");
    return 0;
}

/* One f90 type: its envelope and contents name the call and its arguments. */
static int f90_type(MPI_Datatype t, int combiner, int ni, int p, int r, const char *what)
{
    int n_i = -1, n_a = -1, n_d = -1, comb = -1, ints[2] = { -7, -7 };
    MPI_Type_get_envelope(t, &n_i, &n_a, &n_d, &comb);
    if (comb != combiner || n_i != ni || n_a != 0 || n_d != 0)
        return fail(what);
    MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL);
    if ((ni == 2 && (ints[0] != p || ints[1] != r)) || (ni == 1 && ints[0] != r))
        return fail(what);
    return 0;
}

static int f90(void)
{
    MPI_Datatype t;
    int bad = 0;
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t);
    bad |= f90_type(t, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED, "MPI_Type_create_f90_real envelope");
    MPI_Type_create_f90_complex(15, 300, &t);
    bad |= f90_type(t, MPI_COMBINER_F90_COMPLEX, 2, 15, 300, "MPI_Type_create_f90_complex envelope");
    MPI_Type_create_f90_integer(9, &t);
    bad |= f90_type(t, MPI_COMBINER_F90_INTEGER, 1, 0, 9, "MPI_Type_create_f90_integer envelope");
    return bad;
}

/* MPI_DUP_FN copies the attribute into a Comm_dup, MPI_NULL_COPY_FN does not. */
static int legacy_keyvals(void)
{
    int dup_key = MPI_KEYVAL_INVALID, null_key = MPI_KEYVAL_INVALID, value = 42, *got = NULL, flag = 0;
    if (MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &dup_key, NULL) != MPI_SUCCESS ||
        MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &null_key, NULL) != MPI_SUCCESS)
        return fail("MPI_Keyval_create with MPI_DUP_FN / MPI_NULL_COPY_FN failed");
    MPI_Comm c;
    MPI_Attr_put(MPI_COMM_WORLD, dup_key, &value);
    MPI_Attr_put(MPI_COMM_WORLD, null_key, &value);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Attr_get(c, dup_key, &got, &flag);
    if (!flag || got != &value)
        return fail("MPI_DUP_FN did not copy the attribute into MPI_Comm_dup");
    MPI_Attr_get(c, null_key, &got, &flag);
    if (flag)
        return fail("MPI_NULL_COPY_FN copied the attribute");
    MPI_Comm_free(&c);
    MPI_Attr_delete(MPI_COMM_WORLD, dup_key);
    MPI_Attr_delete(MPI_COMM_WORLD, null_key);
    MPI_Keyval_free(&dup_key);
    MPI_Keyval_free(&null_key);
    return 0;
}

int main(int argc, char **argv)
{
    int size = 0, major = 0, minor = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return fail("MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != MPI_ABI_VERSION || minor != MPI_ABI_SUBVERSION)
        return fail("MPI_Abi_get_version is not the header's");
    if (MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) != MPI_COMM_WORLD)
        return fail("MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) is another handle");

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long long out[3] = { rank, rank * 2, rank * 3 }, in[3] = { -1, -1, -1 };
    MPI_Status st;
    MPI_Sendrecv(out, 3, MPI_LONG_LONG, right, 7, in, 3, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                 &st);
    int count = -1;
    MPI_Get_count(&st, MPI_LONG_LONG, &count);
    if (st.MPI_SOURCE != left || st.MPI_TAG != 7 || count != 3 || in[2] != left * 3)
        return fail("ring exchange: wrong status or data");
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        return fail("MPI_Allreduce(MPI_SUM) of ones is not the size");

    if (errors_return(size) || attributes(size) || f90() || legacy_keyvals())
        return 1;
    MPI_Finalize();
    if (rank == 0)
        printf("abi_ref_prog: ok\n");
    return 0;
}
