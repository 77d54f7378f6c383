/*
 * rw.c -- the data access calls of MPI-4.1 14.4: explicit offsets,
 * individual and shared file pointers, ordered, their collective (_all),
 * nonblocking (i) and split collective (_begin/_end) forms, plain and _c.
 *
 * All of them are one function, rw(), with the position chosen by `how`.
 * The collective forms (coll) go through two-phase I/O when the group
 * chooses it (twophase.c), else each rank accesses independently.  The nonblocking
 * forms complete during the call and hand back a completed request.  A
 * split collective does its work in _begin and keeps the status for _end.
 */
#include "io/io.h"
#include "core/error.h"
#include "core/io_stats.h"
#include "fe_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum how { AT, INDIV, SHARED, ORDERED };

/* The etypes that count elements of dt make. */
static MPI_Offset etypes_of(const struct cm_file *f, MPI_Count count, MPI_Datatype dt)
{
    return cm_io_stream_size(f, dt) * count / f->esize;
}

/* Ordered access (14.4.4): rank r starts where ranks 0..r-1 end, from the
 * shared pointer; rank 0 moves it by the group's total.  An error found
 * before the data moves is shared as a count of -1, so that every rank
 * leaves the same way. */
static int ordered_pos(struct cm_file *f, const char *call, int rc, MPI_Offset mine, MPI_Offset *pos)
{
    long long n = rc ? -1 : mine, *all = malloc((size_t)f->size * sizeof *all);
    if (!all)
        return cm_io_error(f, MPI_ERR_NO_MEM, call, "out of memory");
    PMPI_Allgather(&n, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, f->comm);
    long long before = 0, total = 0, bad = 0;
    for (int r = 0; r < f->size; r++) {
        bad |= all[r] < 0;
        total += all[r];
        if (r < f->rank)
            before += all[r];
    }
    free(all);
    if (bad)
        return rc ? rc : cm_io_error(f, MPI_ERR_OTHER, call, "the ordered access failed on another rank");
    long long base = 0;
    if (f->rank == 0)
        base = __atomic_fetch_add(f->shared, total, __ATOMIC_SEQ_CST);
    PMPI_Bcast(&base, 1, MPI_LONG_LONG, 0, f->comm);
    *pos = base + before;
    return MPI_SUCCESS;
}

static int rw(MPI_File fh, const char *call, int write, enum how how, MPI_Offset offset, void *buf,
              MPI_Count count, MPI_Datatype dt, MPI_Status *st, int coll)
{
    CM_IO_FILE(f, fh, call, rc);
    uint64_t t0 = cm_io_clock();
    if ((how == AT || how == INDIV) && (f->amode & MPI_MODE_SEQUENTIAL))
        return cm_io_error(f, MPI_ERR_UNSUPPORTED_OPERATION, call,
                           "the file was opened MPI_MODE_SEQUENTIAL: only the shared file pointer may be used");
    MPI_Offset pos = offset, done = 0;
    if (how == ORDERED) {
        rc = cm_io_check_access(f, call, write, count, dt);
        rc = ordered_pos(f, call, rc, rc ? 0 : etypes_of(f, count, dt), &pos);
        if (rc)
            return rc;
    } else if (how == INDIV) {
        cm_mt_lock(&f->pos_lock);      /* threads sharing the file move the pointer one at a time */
        pos = f->pos;
    } else if (how == SHARED) {
        if ((rc = cm_io_check_access(f, call, write, count, dt)))
            return rc;
        pos = __atomic_fetch_add(f->shared, etypes_of(f, count, dt), __ATOMIC_SEQ_CST);
    }
    if (!coll || !cm_io_twophase(f, call, write, pos, buf, count, dt, st, &done, &rc))
        rc = cm_io_access(f, call, write, pos, buf, count, dt, st, &done);
    if (!rc && how == INDIV)
        f->pos += done / f->esize;
    if (how == INDIV)
        cm_mt_unlock(&f->pos_lock);
    cm_io_stats_add(write, rc ? 0 : (uint64_t)done, t0);
    return rc;
}

/* Nonblocking: the access completes here; the request reports its status. */
static int irw(MPI_File fh, const char *call, int write, enum how how, MPI_Offset offset, void *buf,
               MPI_Count count, MPI_Datatype dt, MPI_Request *request, int coll)
{
    CM_IO_FILE(f, fh, call, rc);
    if (!request)
        return cm_io_error(f, MPI_ERR_REQUEST, call, "request pointer is NULL");
    MPI_Status st;
    rc = rw(fh, call, write, how, offset, buf, count, dt, &st, coll);
    if (rc) {
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    return cm_io_done_request(f, call, &st, request);
}

static int split_begin(MPI_File fh, const char *call, int write, enum how how, MPI_Offset offset, void *buf,
                       MPI_Count count, MPI_Datatype dt)
{
    CM_IO_FILE(f, fh, call, rc);
    if (f->split_call)
        return cm_io_error(f, MPI_ERR_OTHER, call, "%s is still pending: one split collective per file at a time",
                           f->split_call);
    rc = rw(fh, call, write, how, offset, buf, count, dt, &f->split_status, 1);
    if (!rc)
        f->split_call = call;
    return rc;
}

static int split_end(MPI_File fh, const char *call, const char *begin, MPI_Status *st)
{
    CM_IO_FILE(f, fh, call, rc);
    if (!f->split_call || strcmp(f->split_call, begin))
        return cm_io_error(f, MPI_ERR_OTHER, call, "no %s is pending%s%s", begin,
                           f->split_call ? " (pending: " : "", f->split_call ? f->split_call : "");
    f->split_call = NULL;
    if (st != MPI_STATUS_IGNORE)
        *st = f->split_status;
    return MPI_SUCCESS;
}

/* ---- the entry points --------------------------------------------------- */

/* Name: the call without MPI_File_; W: write; HOW: the position.  The
 * explicit-offset forms take an offset argument, the others position 0
 * (unused): HOW##_PARAM and HOW##_ARG. */
#define CALL(Name) "MPI_File_" #Name
#define AT_PARAM MPI_Offset offset,
#define AT_ARG offset
#define INDIV_PARAM
#define INDIV_ARG 0
#define SHARED_PARAM
#define SHARED_ARG 0
#define ORDERED_PARAM
#define ORDERED_ARG 0
/* A blocking (Fn rw, Last MPI_Status *) or nonblocking (irw, MPI_Request *)
 * access, plain and _c. */
#define ACCESS(Fn, Name, W, HOW, BUF, Last, last, C)                                                      \
    int cm_File_##Name##_c(MPI_File fh, HOW##_PARAM BUF buf, MPI_Count count, MPI_Datatype datatype, Last last) \
    {                                                                                                  \
        return Fn(fh, CALL(Name), W, HOW, HOW##_ARG, (void *)buf, count, datatype, last, C);              \
    }                                                                                                  \
    int cm_File_##Name(MPI_File fh, HOW##_PARAM BUF buf, int count, MPI_Datatype datatype, Last last)  \
    {                                                                                                  \
        return Fn(fh, CALL(Name), W, HOW, HOW##_ARG, (void *)buf, count, datatype, last, C);              \
    }
#define RW(Name, W, HOW, BUF, C) ACCESS(rw, Name, W, HOW, BUF, MPI_Status *, status, C)
#define IRW(Name, W, HOW, BUF, C) ACCESS(irw, Name, W, HOW, BUF, MPI_Request *, request, C)
#define SPLIT(Name, W, HOW, BUF)                                                                       \
    int cm_File_##Name##_begin_c(MPI_File fh, HOW##_PARAM BUF buf, MPI_Count count, MPI_Datatype datatype) \
    {                                                                                                  \
        return split_begin(fh, CALL(Name##_begin), W, HOW, HOW##_ARG, (void *)buf, count, datatype);   \
    }                                                                                                  \
    int cm_File_##Name##_begin(MPI_File fh, HOW##_PARAM BUF buf, int count, MPI_Datatype datatype)     \
    {                                                                                                  \
        return split_begin(fh, CALL(Name##_begin), W, HOW, HOW##_ARG, (void *)buf, count, datatype);   \
    }                                                                                                  \
    int cm_File_##Name##_end(MPI_File fh, BUF buf, MPI_Status *status)                                 \
    {                                                                                                  \
        (void)buf;                                                                                     \
        return split_end(fh, CALL(Name##_end), CALL(Name##_begin), status);                            \
    }

RW(read_at, 0, AT, void *, 0)
RW(write_at, 1, AT, const void *, 0)
RW(read_at_all, 0, AT, void *, 1)
RW(write_at_all, 1, AT, const void *, 1)
RW(read, 0, INDIV, void *, 0)
RW(write, 1, INDIV, const void *, 0)
RW(read_all, 0, INDIV, void *, 1)
RW(write_all, 1, INDIV, const void *, 1)
RW(read_shared, 0, SHARED, void *, 0)
RW(write_shared, 1, SHARED, const void *, 0)
RW(read_ordered, 0, ORDERED, void *, 1)
RW(write_ordered, 1, ORDERED, const void *, 1)

IRW(iread_at, 0, AT, void *, 0)
IRW(iwrite_at, 1, AT, const void *, 0)
IRW(iread_at_all, 0, AT, void *, 1)
IRW(iwrite_at_all, 1, AT, const void *, 1)
IRW(iread, 0, INDIV, void *, 0)
IRW(iwrite, 1, INDIV, const void *, 0)
IRW(iread_all, 0, INDIV, void *, 1)
IRW(iwrite_all, 1, INDIV, const void *, 1)
IRW(iread_shared, 0, SHARED, void *, 0)
IRW(iwrite_shared, 1, SHARED, const void *, 0)

SPLIT(read_at_all, 0, AT, void *)
SPLIT(write_at_all, 1, AT, const void *)
SPLIT(read_all, 0, INDIV, void *)
SPLIT(write_all, 1, INDIV, const void *)
SPLIT(read_ordered, 0, ORDERED, void *)
SPLIT(write_ordered, 1, ORDERED, const void *)
