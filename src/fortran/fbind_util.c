/* fbind_util.c -- the sentinels' storage and the helpers of fbind_util.h. */
/* The sentinels are defined here: mpi.h declares two of them weak for C
 * programs (MPI_F_STATUS_IGNORE); a definition must not become weak. */
#define CMF_SENTINELS_DEFINED
#include "fbind_util.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The common blocks' storage: a program's own COMMON of the same name binds
 * to these (or these to it) by the usual symbol resolution. */
/* Aligned as gfortran aligns a common block (up to 32), so the two definitions agree. */
#define CMF_VISIBLE __attribute__((visibility("default"), aligned(32)))
CMF_VISIBLE MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
CMF_VISIBLE MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
CMF_VISIBLE MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
CMF_VISIBLE MPI_Fint mpi_fortran_errcodes_ignore_[1], mpi_fortran_unweighted_[1];
CMF_VISIBLE MPI_Fint mpi_fortran_weights_empty_[1];
CMF_VISIBLE char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

MPI_Fint cmf_logical_true = 1, cmf_logical_false = 0;

/* When the library is loaded (before MPI_Init or MPI_Session_init, which
 * these calls allow), tell libmpi what the compiler it was built for uses,
 * as the MPI-5.0 ABI has a Fortran binding do: gfortran's .TRUE./.FALSE.
 * are 1/0 at every LOGICAL kind, INTEGER and REAL are 4 bytes. */
__attribute__((constructor)) static void cmf_tell_libmpi(void)
{
    static const unsigned char t[16] = { 1 }, f[16] = { 0 };
    for (int size = 1; size <= 16; size *= 2)
        PMPI_Abi_set_fortran_booleans(size, (void *)t, (void *)f);
    static const char *const kv[][2] = {
        { "mpi_logical_size", "4" }, { "mpi_integer_size", "4" }, { "mpi_real_size", "4" },
        { "mpi_double_precision_size", "8" },
    };
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS)
        return;
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        PMPI_Info_set(info, kv[i][0], kv[i][1]);
    PMPI_Abi_set_fortran_info(info);
    PMPI_Info_free(&info);
}

/* The pass-through callbacks (gen_fortran.py PASS_THROUGH_CB) rely on a C
 * handle's first 4 bytes being its Fortran integer. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "Fortran callbacks read a handle's low 4 bytes as its integer");
_Static_assert(sizeof(MPI_Fint) == 4 && sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8,
               "mpif.h's kinds (MPI_ADDRESS_KIND=8, MPI_COUNT_KIND=8, INTEGER=4)");
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is an MPI_Status");

void *cmf_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "corempi Fortran binding: out of memory (%zu bytes)\n", n);
        PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
    return p;
}

char *cmf_cstring(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = cmf_alloc(len + 1);
    memcpy(c, f, len);
    c[len] = 0;
    return c;
}

void cmf_fstring(const char *c, char *f, size_t len)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

static int blank(const char *f, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (f[i] != ' ')
            return 0;
    return 1;
}

char **cmf_argv(const char *f, size_t len)
{
    if (f == mpi_fortran_argv_null_ || len == 0)
        return MPI_ARGV_NULL;
    size_t n = 0;
    while (!blank(f + n * len, len))
        n++;
    char **argv = cmf_alloc((n + 1) * sizeof *argv);
    for (size_t i = 0; i < n; i++)
        argv[i] = cmf_cstring(f + i * len, len);
    argv[n] = NULL;
    return argv;
}

void cmf_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char **cmf_strings(const char *f, size_t len, int n)
{
    if (n < 0)
        n = 0;
    char **s = cmf_alloc(((size_t)n + 1) * sizeof *s);
    for (int i = 0; i < n; i++)
        s[i] = cmf_cstring(f + (size_t)i * len, len);
    s[n] = NULL;
    return s;
}

char ***cmf_argvs(const char *f, size_t len, int n)
{
    if (f == mpi_fortran_argvs_null_ || len == 0 || n <= 0)
        return MPI_ARGVS_NULL;
    char ***lists = cmf_alloc(((size_t)n + 1) * sizeof *lists);
    for (int i = 0; i < n; i++) {
        size_t m = 0;
        while (!blank(f + (m * (size_t)n + (size_t)i) * len, len))
            m++;
        lists[i] = cmf_alloc((m + 1) * sizeof *lists[i]);
        for (size_t j = 0; j < m; j++)
            lists[i][j] = cmf_cstring(f + (j * (size_t)n + (size_t)i) * len, len);
        lists[i][m] = NULL;
    }
    lists[n] = NULL;
    return lists;
}

void cmf_argvs_free(char ***argvs)
{
    for (size_t i = 0; argvs && argvs[i]; i++)
        cmf_argv_free(argvs[i]);
    free(argvs);
}

int cmf_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

int cmf_rsize(MPI_Comm comm)
{
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int cmf_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

int cmf_ndims(MPI_Comm comm)
{
    int n = 0;
    PMPI_Cartdim_get(comm, &n);
    return n;
}

int cmf_indegree(MPI_Comm comm)
{
    int in = 0, out = 0, w = 0, type = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &type);
    if (type == MPI_CART)
        return 2 * cmf_ndims(comm);
    if (type == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, cmf_rank(comm), &in);
        return in;
    }
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
    return in;
}

int cmf_outdegree(MPI_Comm comm)
{
    int in = 0, out = 0, w = 0, type = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &type);
    if (type != MPI_DIST_GRAPH)
        return cmf_indegree(comm);
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
    return out;
}

MPI_Aint cmf_attr_value(int keyval, void *c_value, int is_win)
{
    if (is_win) {
        switch (keyval) {
        case MPI_WIN_BASE: return (MPI_Aint)c_value;
        case MPI_WIN_SIZE: return *(MPI_Aint *)c_value;
        case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
            return *(int *)c_value;
        }
        return (MPI_Aint)c_value;
    }
    switch (keyval) {
    case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM: case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE:
        return *(int *)c_value;
    }
    return (MPI_Aint)c_value;
}
