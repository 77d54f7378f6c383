/*
 * prof_flavour.c -- refuse to run on an MPI library this flavour was not
 * built for.
 *
 * Each libcoreprof flavour is compiled against one mpi.h (corempi's, Open
 * MPI's, MPICH's), whose handles differ in width and value: corempi's are
 * small ints, Open MPI's pointers, MPICH's ints of another encoding.  The
 * wrong flavour preloaded into a program passes handles it does not
 * understand to the real library and every rank crashes or aborts with a
 * message about an invalid communicator.  So MPI_Init and MPI_Init_thread
 * (prof_env.c) call cm_prof_check_flavour() before anything else: it asks
 * the library the process really runs on (PMPI_Get_library_version, which
 * the standard allows before MPI_Init and which takes no handle, found by
 * name in the process's global scope, i.e. the program's own MPI) and, on a
 * mismatch, prints one line naming the right flavour (from the first rank
 * only: the others wait a moment first, so that the launcher, seeing rank
 * 0 end, does not kill it before it has spoken) and ends the process with
 * status 1.  Running on unprofiled is not
 * possible: this library's MPI_* symbols already stand in front of the
 * real ones for the whole process.
 *
 * A library whose version string names none of the three is let through:
 * derivatives (Intel MPI, MVAPICH) say "MPICH" or say something else, and
 * then the user chose the flavour on purpose.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum cm_prof_flavour { CM_FLAVOUR_UNKNOWN, CM_FLAVOUR_COREMPI, CM_FLAVOUR_OPENMPI, CM_FLAVOUR_MPICH };

/* Which mpi.h this file was compiled with: each defines its own macro. */
#if defined(OPEN_MPI)
#define CM_FLAVOUR_SELF CM_FLAVOUR_OPENMPI
#elif defined(MPICH_VERSION)
#define CM_FLAVOUR_SELF CM_FLAVOUR_MPICH
#elif defined(COREMPI_VERSION_STRING)
#define CM_FLAVOUR_SELF CM_FLAVOUR_COREMPI
#else
#define CM_FLAVOUR_SELF CM_FLAVOUR_UNKNOWN
#endif

static const char *const cm_flavour_name[] = { "an unknown MPI", "corempi", "Open MPI", "MPICH" };
static const char *const cm_flavour_lib[] = { "", "libcoreprof.so",
                                              "libcoreprof-openmpi.so", "libcoreprof-mpich.so" };

static enum cm_prof_flavour running_flavour(void)
{
    int (*get)(char *, int *) = (int (*)(char *, int *))dlsym(RTLD_DEFAULT, "PMPI_Get_library_version");
    if (!get)
        return CM_FLAVOUR_UNKNOWN;
    /* Larger than any library's MPI_MAX_LIBRARY_VERSION_STRING (MPICH: 8192). */
    static char version[16384];
    int len = 0;
    if (get(version, &len) != 0)
        return CM_FLAVOUR_UNKNOWN;
    version[sizeof version - 1] = '\0';
    if (strstr(version, "corempi"))
        return CM_FLAVOUR_COREMPI;
    if (strstr(version, "Open MPI"))
        return CM_FLAVOUR_OPENMPI;
    if (strstr(version, "MPICH"))
        return CM_FLAVOUR_MPICH;
    return CM_FLAVOUR_UNKNOWN;
}

/* The rank as each launcher tells it before MPI_Init; -1 when none does. */
static int launcher_rank(void)
{
    static const char *const vars[] = { "COREMPI_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *s = getenv(vars[i]);
        if (s && *s)
            return atoi(s);
    }
    return -1;
}

void cm_prof_check_flavour(void)
{
    enum cm_prof_flavour running = running_flavour();
    if (running == CM_FLAVOUR_UNKNOWN || CM_FLAVOUR_SELF == CM_FLAVOUR_UNKNOWN || running == CM_FLAVOUR_SELF)
        return;
    if (launcher_rank() <= 0) {
        fprintf(stderr, "coreprof: this program runs on %s; preload %s instead (this one is for %s)\n",
                cm_flavour_name[running], cm_flavour_lib[running], cm_flavour_name[CM_FLAVOUR_SELF]);
        fflush(stderr);
    } else {
        sleep(5);
    }
    _exit(1);
}
