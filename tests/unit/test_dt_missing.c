/*
 * test_dt_missing.c -- the predefined types a C compiler may lack, as a
 * build without _Float16, _Float128 and __int128 sees them.
 *
 * Built from core/dt_basic.c and core/op_predefined.c with those compiler
 * macros undefined (tests/unit/CMakeLists.txt), so the fallback branches of
 * core/dt_basic.h are the ones compiled: the types keep their place and size
 * in the table, say which C type is missing, have class NONE and no op
 * loops, while every other type (MPI_BFLOAT16 included: it needs no compiler
 * support) is unaffected.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mpi.h"
#include "core/dt_basic.h"
#include "core/op.h"

#if CM_HAVE_FLOAT16 || CM_HAVE_FLOAT128 || CM_HAVE_INT128
#error "test_dt_missing must be built without _Float16, _Float128 and __int128"
#endif

static void expect_missing(MPI_Datatype dt, const char *ctype)
{
    const char *why = cm_dt_basic_missing(dt);
    if (!why || !strstr(why, ctype))
        fail_msg("%s: missing reason \"%s\" does not name %s", cm_dt_basic_name(dt), why ? why : "(none)", ctype);
    assert_int_equal(cm_dt_basic_class(dt), CM_DTC_NONE);
    assert_null(cm_op_predefined_kernel(MPI_SUM, dt));
    assert_null(cm_op_predefined_kernel(MPI_REPLACE, dt));
}

static void test_missing_types(void **state)
{
    (void)state;
    expect_missing(MPI_REAL2, "_Float16");
    expect_missing(MPI_FLOAT16, "_Float16");
    expect_missing(MPI_COMPLEX4, "_Float16");
    expect_missing(MPI_REAL16, "_Float128");
    expect_missing(MPI_COMPLEX32, "_Float128");
    expect_missing(MPI_INTEGER16, "__int128");
    expect_missing(MPI_LOGICAL16, "__int128");
    /* the table keeps their sizes, so nothing after them moves */
    assert_int_equal(cm_dt_basic_size(MPI_REAL16), 16);
    assert_int_equal(cm_dt_basic_size(MPI_FLOAT16), 2);
    assert_int_equal(cm_dt_basic_size(MPI_COMPLEX32), 32);
    assert_string_equal(cm_dt_basic_name(MPI_INTEGER16), "MPI_INTEGER16");
}

static void test_others_unaffected(void **state)
{
    (void)state;
    for (MPI_Datatype dt = cm_dt_handle(1); cm_dt_index(dt) < CM_DT_NUM_PREDEFINED; dt = cm_dt_handle(cm_dt_index(dt) + 1)) {
        if (cm_dt_basic_missing(dt))
            continue;
        if (cm_dt_basic_class(dt) == CM_DTC_NONE)
            fail_msg("%s has no class", cm_dt_basic_name(dt));
        assert_non_null(cm_op_predefined_kernel(MPI_REPLACE, dt));
    }
    assert_null(cm_dt_basic_missing(MPI_BFLOAT16));
    assert_non_null(cm_op_predefined_kernel(MPI_SUM, MPI_BFLOAT16));
    assert_non_null(cm_op_predefined_kernel(MPI_BXOR, MPI_INTEGER8));
    assert_non_null(cm_op_predefined_kernel(MPI_LXOR, MPI_LOGICAL8));
    assert_null(cm_op_predefined_kernel(MPI_LXOR, MPI_INTEGER8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_types),
        cmocka_unit_test(test_others_unaffected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
