/*
 * dt_f90.c -- MPI_Type_match_size and MPI_Type_create_f90_integer/real/
 * complex, MPI_Type_get_value_index: the smallest predefined type that fits, a predefined result that
 * Type_free refuses, and bad arguments under MPI_ERRORS_RETURN.
 */
#include "dt_ref.h"

static int size_of(MPI_Datatype t)
{
    int s = -1;
    MPI_Type_size(t, &s);
    return s;
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
    CHECK(MPI_Type_create_f90_integer(4, &t) == MPI_SUCCESS && t == MPI_INTEGER2, "f90 integer r=4");
    CHECK(MPI_Type_create_f90_integer(9, &t) == MPI_SUCCESS && t == MPI_INTEGER4, "f90 integer r=9");
    CHECK(MPI_Type_create_f90_integer(10, &t) == MPI_SUCCESS && t == MPI_INTEGER8, "f90 integer r=10");
    CHECK(MPI_Type_create_f90_integer(30, &t) == MPI_SUCCESS && t == MPI_INTEGER16, "f90 integer r=30");
    CHECK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t) == MPI_SUCCESS && t == MPI_REAL4, "f90 real p=6");
    CHECK(MPI_Type_create_f90_real(7, 30, &t) == MPI_SUCCESS && t == MPI_REAL8, "f90 real p=7");
    CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t) == MPI_SUCCESS && t == MPI_REAL8, "f90 real r=300");
    CHECK(MPI_Type_create_f90_real(18, MPI_UNDEFINED, &t) == MPI_SUCCESS && t == MPI_LONG_DOUBLE, "f90 real p=18");
    CHECK(MPI_Type_create_f90_real(30, MPI_UNDEFINED, &t) == MPI_SUCCESS && t == MPI_REAL16, "f90 real p=30");
    CHECK(MPI_Type_create_f90_complex(15, 307, &t) == MPI_SUCCESS && t == MPI_COMPLEX16, "f90 complex");
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
