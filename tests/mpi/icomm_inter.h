/*
 * icomm_inter.h -- the intercommunicator the intercommunicator tests share:
 * WORLD's even ranks against its odd ones, each group's leader its last
 * rank (not rank 0, on purpose), made over MPI_COMM_WORLD as peer.
 */
#ifndef COREMPI_TESTS_ICOMM_INTER_H
#define COREMPI_TESTS_ICOMM_INTER_H

#include "check.h"

struct icomm {
    MPI_Comm local, inter;
    int wrank, wsize, color; /* color: 0 even, 1 odd */
    int lrank, lsize, rsize;
};

/* World rank of rank r of the group of color c (key = world rank). */
static inline int icomm_world_of(int c, int r) { return 2 * r + c; }
static inline int icomm_group_size(int wsize, int c) { return (wsize - c + 1) / 2; }

static inline void icomm_make(struct icomm *t)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &t->wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &t->wsize);
    t->color = t->wrank % 2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, t->color, t->wrank, &t->local));
    MPI_Comm_rank(t->local, &t->lrank);
    MPI_Comm_size(t->local, &t->lsize);
    int rc = 1 - t->color, rsize = icomm_group_size(t->wsize, rc);
    CHECK_MPI(MPI_Intercomm_create(t->local, t->lsize - 1, MPI_COMM_WORLD, icomm_world_of(rc, rsize - 1), 7,
                                   &t->inter));
    CHECK_MPI(MPI_Comm_remote_size(t->inter, &t->rsize));
    CHECK(t->rsize == rsize, "remote size %d, expected %d", t->rsize, rsize);
}

/* rc must be an error of class cls whose message names call. */
static inline void icomm_expect_error(int rc, int cls, const char *call, const char *what)
{
    int got = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    CHECK(rc != MPI_SUCCESS, "%s: succeeded, expected class %d", what, cls);
    MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, call), "%s: message \"%s\" does not name %s", what, text, call);
}

static inline void icomm_free(struct icomm *t)
{
    CHECK_MPI(MPI_Comm_free(&t->inter));
    CHECK_MPI(MPI_Comm_free(&t->local));
}

#endif
