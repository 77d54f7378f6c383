/*
 * dt_f90.c -- MPI_Type_match_size and MPI_Type_create_f90_integer/real/
 * complex, MPI_Type_get_value_index: the smallest predefined type that fits;
 * the f90 calls' result has that type's layout but its own envelope
 * (MPI_COMBINER_F90_*, contents {p, r} or {r}), is the same handle for the
 * same arguments, works in a reduction and is refused by Type_free; bad
 * arguments under MPI_ERRORS_RETURN.
 */
#include "dt_ref.h"

static int size_of(MPI_Datatype t)
{
    int s = -1;
    MPI_Type_size(t, &s);
    return s;
}

/* t is an f90 type laid out as named: same size and extent, the f90
 * combiner with the arguments given (p is ignored for integers). */
static int is_f90(MPI_Datatype t, MPI_Datatype named, int combiner, int p, int r)
{
    int ni = -1, na = -1, nd = -1, comb = -1, ints[2] = { -7, -7 };
    MPI_Aint lb, ext, nlb, next;
    if (t == named || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb != combiner)
        return 0;
    int want_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    if (ni != want_ni || na != 0 || nd != 0 || MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) != MPI_SUCCESS)
        return 0;
    if (want_ni == 1 ? ints[0] != r : ints[0] != p || ints[1] != r)
        return 0;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_extent(named, &nlb, &next);
    return size_of(t) == size_of(named) && lb == nlb && ext == next;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    for (int s = 1; s <= 8; s *= 2) {
        CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, s, &t) == MPI_SUCCESS && size_of(t) == s, "int %d", s);
    }
    /* the Fortran sized types (MPI-4.1 §19.1.9), usable from C */
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t) == MPI_SUCCESS && t == MPI_INTEGER4, "integer 4");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t) == MPI_SUCCESS && t == MPI_REAL4, "real 4");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t) == MPI_SUCCESS && t == MPI_REAL8, "real 8");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t) == MPI_SUCCESS && t == MPI_COMPLEX16, "cplx 16");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t) == MPI_SUCCESS && t == MPI_REAL16, "real 16");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t) == MPI_SUCCESS && t == MPI_REAL2, "real 2");
#ifdef MPIX_TYPECLASS_LOGICAL
    CHECK(MPI_Type_match_size(MPIX_TYPECLASS_LOGICAL, 4, &t) == MPI_SUCCESS && t == MPI_LOGICAL4, "logical 4");
    CHECK(MPI_Type_match_size(MPIX_TYPECLASS_LOGICAL, 1, &t) == MPI_SUCCESS && t == MPI_LOGICAL1, "logical 1");
#endif
#define F90_INT(r, named) \
    CHECK(MPI_Type_create_f90_integer(r, &t) == MPI_SUCCESS && is_f90(t, named, MPI_COMBINER_F90_INTEGER, 0, r), \
          "f90 integer r=%d: not an MPI_COMBINER_F90_INTEGER type laid out as " #named, r)
#define F90_REAL(p, r, named) \
    CHECK(MPI_Type_create_f90_real(p, r, &t) == MPI_SUCCESS && is_f90(t, named, MPI_COMBINER_F90_REAL, p, r), \
          "f90 real p=%d r=%d: not an MPI_COMBINER_F90_REAL type laid out as " #named, p, r)
    F90_INT(4, MPI_INTEGER2);
    F90_INT(9, MPI_INTEGER4);
    F90_INT(10, MPI_INTEGER8);
    F90_INT(30, MPI_INTEGER16);
    F90_REAL(6, MPI_UNDEFINED, MPI_REAL4);
    F90_REAL(7, 30, MPI_REAL8);
    F90_REAL(MPI_UNDEFINED, 300, MPI_REAL8);
    F90_REAL(18, MPI_UNDEFINED, MPI_LONG_DOUBLE);
    F90_REAL(30, MPI_UNDEFINED, MPI_REAL16);
    CHECK(MPI_Type_create_f90_complex(15, 307, &t) == MPI_SUCCESS &&
              is_f90(t, MPI_COMPLEX16, MPI_COMBINER_F90_COMPLEX, 15, 307),
          "f90 complex p=15 r=307: not an MPI_COMBINER_F90_COMPLEX type laid out as MPI_COMPLEX16");
    {
        /* the same arguments, the same handle; usable in a reduction */
        MPI_Datatype again = MPI_DATATYPE_NULL, r8;
        CHECK(MPI_Type_create_f90_complex(15, 307, &again) == MPI_SUCCESS && again == t,
              "f90 complex (15, 307) twice: two handles");
        CHECK(MPI_Type_create_f90_real(7, 30, &r8) == MPI_SUCCESS, "f90 real (7, 30)");
        double in[2] = { 1.5, -2 }, out[2] = { 0, 0 };
        int size = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK(MPI_Allreduce(in, out, 2, r8, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS && out[0] == 1.5 * size &&
                  out[1] == -2.0 * size,
              "MPI_Allreduce(MPI_SUM) on an f90 real: %g %g", out[0], out[1]);
    }
    CHECK(size_of(MPI_INTEGER) == 4 && size_of(MPI_LOGICAL) == 4 && size_of(MPI_DOUBLE_PRECISION) == 8 &&
              size_of(MPI_DOUBLE_COMPLEX) == 16 && size_of(MPI_CHARACTER) == 1 && size_of(MPI_2REAL) == 8 &&
              size_of(MPI_2DOUBLE_PRECISION) == 16,
          "Fortran type sizes");
#ifdef MPI_FLOAT16 /* corempi's half floats */
    CHECK(size_of(MPI_FLOAT16) == 2 && size_of(MPI_BFLOAT16) == 2, "half float sizes");
#endif
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0, ni, na, nd, comb;
        CHECK(MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, &len) == MPI_SUCCESS &&
                  strcmp(name, "MPI_DOUBLE_PRECISION") == 0 && len == 20, "name of MPI_DOUBLE_PRECISION");
        CHECK(MPI_Type_get_envelope(MPI_2INTEGER, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED,
              "MPI_2INTEGER not named");
    }
    MPI_Datatype keep = t;
    CHECK(MPI_Type_free(&t) == MPI_ERR_TYPE && t == keep, "f90 result freed");

    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t) == MPI_SUCCESS && t == MPI_DOUBLE_INT, "double,int");
    CHECK(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_SHORT_INT, "short,int");
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t) == MPI_SUCCESS && t == MPI_DATATYPE_NULL, "double,long");
    CHECK(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &t) == MPI_SUCCESS && t == MPI_2REAL, "real,real");
    CHECK(MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER, &t) == MPI_SUCCESS && t == MPI_2INTEGER, "integer,integer");
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, &t) == MPI_SUCCESS &&
              t == MPI_2DOUBLE_PRECISION, "dp,dp");
    CHECK(MPI_Type_get_value_index(MPI_REAL, MPI_INTEGER, &t) == MPI_SUCCESS && t == MPI_DATATYPE_NULL, "real,integer");

    /* bad arguments */
    CHECK(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t) == MPI_ERR_TYPE, "NULL value_type accepted");
    CHECK(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL) == MPI_ERR_ARG, "NULL pair_type accepted");
    CHECK(MPI_Type_match_size(7, 4, &t) == MPI_ERR_ARG, "typeclass 7 accepted");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) == MPI_ERR_ARG, "integer size 3 accepted");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL) == MPI_ERR_ARG, "NULL datatype accepted");
    CHECK(MPI_Type_create_f90_integer(39, &t) == MPI_ERR_ARG, "integer range 39 accepted");
    CHECK(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "precision 34 accepted");
    CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "both undefined accepted");
    CHECK(MPI_Type_create_f90_complex(6, 37, NULL) == MPI_ERR_ARG, "NULL newtype accepted");
    MPI_Finalize();
    return 0;
}
