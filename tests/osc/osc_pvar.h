/*
 * osc_pvar.h -- read one of corempi's MPI_T counters by name (osc_am_ops,
 * osc_direct_targets): which path the one-sided operations took.  Standard
 * MPI_T calls only; another MPI lacks the variable and gets -1 (the test
 * then skips that check).  One variable per program: the first name asked
 * for is the one read.  MPI_T_init_thread must have been called.
 */
#ifndef COREMPI_TESTS_OSC_PVAR_H
#define COREMPI_TESTS_OSC_PVAR_H

#include <mpi.h>

#include "check.h"

static inline long long osc_pvar(const char *name)
{
    static int idx = -2;
    static MPI_T_pvar_session s;
    static MPI_T_pvar_handle h;
    if (idx == -2) {
        int count;
        if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) {
            idx = -1;
            return -1;
        }
        CHECK_MPI(MPI_T_pvar_session_create(&s));
        CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    }
    if (idx < 0)
        return -1;
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return (long long)v;
}

/* MPI_Init, MPI_T_init_thread, rank and size: the start of both programs. */
static inline void osc_pvar_start(int *argc, char ***argv, int *me, int *n)
{
    int provided;
    MPI_Init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, n);
}

#endif
