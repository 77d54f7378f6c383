/*
 * large_pack.c -- MPI_Pack_c, Unpack_c, Pack_size_c, the external32 _c
 * calls and MPI_Reduce_local_c.
 *
 * Pack_c and Unpack_c work at outbuf + *position with a position of 0 in
 * the int twin, so a position or buffer size beyond INT_MAX is fine as long
 * as one call moves at most INT_MAX bytes (the twin's int outsize); the
 * external32 twins count in MPI_Aint already and have no such limit.
 */
#include "mpi/large.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_dt.h"

#include <limits.h>

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c

/* The room left after *position in a buffer of size bytes, for an int twin. */
static int room(MPI_Comm comm, const char *call, const char *sizename, MPI_Count size, const MPI_Count *position,
                int *left)
{
    CM_ARG_NOT_NULL(comm, position, call);
    if (size < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is negative (%lld)", sizename, (long long)size);
    if (*position < 0 || *position > size)
        return cm_error(comm, MPI_ERR_ARG, call, "position %lld is outside the buffer of %lld bytes",
                        (long long)*position, (long long)size);
    MPI_Count l = size - *position;
    *left = l > INT_MAX ? INT_MAX : (int)l;
    return MPI_SUCCESS;
}

/* Both directions: count elements of datatype packed from (unpack 0) or
 * unpacked into buf (only read when packing), through packed, a buffer of
 * size bytes whose next byte to write or read is at *position (advanced by
 * what moved). */
static int pack_or_unpack(int unpack, const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                          const void *packed, MPI_Count size, MPI_Count *position, MPI_Comm comm)
{
    struct cm_lc x;
    int left = 0, pos = 0;
    int rc = room(comm, call, unpack ? "insize" : "outsize", size, position, &left);
    if (rc || (rc = cm_lc_one(comm, call, unpack ? "outcount" : "incount", count, datatype, &x)))
        return rc;
    void *at = cm_lc_at(packed, (MPI_Aint)*position);
    rc = unpack ? PMPI_Unpack(at, left, &pos, buf, x.n, x.t, comm) : PMPI_Pack(buf, x.n, x.t, at, left, &pos, comm);
    cm_lc_free(&x);
    if (rc == MPI_SUCCESS)
        *position += pos;
    return rc;
}

int cm_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
              MPI_Count *position, MPI_Comm comm)
{
    return pack_or_unpack(0, "MPI_Pack_c", (void *)inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int cm_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    return pack_or_unpack(1, "MPI_Unpack_c", outbuf, outcount, datatype, inbuf, insize, position, comm);
}

int cm_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    const char *call = "MPI_Pack_size_c";
    int none;
    /* the twin with no elements checks comm, datatype and size */
    int rc = PMPI_Pack_size(0, datatype, comm, size ? &none : NULL);
    if (rc)
        return rc;
    if (incount < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "incount is negative (%lld)", (long long)incount);
    MPI_Count one;
    if ((rc = PMPI_Type_size_c(datatype, &one)))
        return rc;
    /* the packed form is the data bytes, nothing more (core/datatype_pack.c) */
    if (one == MPI_UNDEFINED && incount == 0)
        one = 0; /* a type beyond MPI_Count: none of it packs to nothing */
    if (one == MPI_UNDEFINED || __builtin_mul_overflow(incount, one, size))
        return cm_error(comm, MPI_ERR_COUNT, call, "incount %lld of a datatype of %lld bytes is more than MPI_Count "
                        "can hold in bytes", (long long)incount, (long long)one);
    return MPI_SUCCESS;
}

int cm_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    struct cm_lc x;
    int rc = cm_lc_one(MPI_COMM_WORLD, "MPI_Pack_external_c", "incount", incount, datatype, &x);
    if (rc)
        return rc;
    MPI_Aint pos = position ? (MPI_Aint)*position : 0;
    rc = PMPI_Pack_external(datarep, inbuf, x.n, x.t, outbuf, (MPI_Aint)outsize, position ? &pos : NULL);
    cm_lc_free(&x);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}

int cm_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                         void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    struct cm_lc x;
    int rc = cm_lc_one(MPI_COMM_WORLD, "MPI_Unpack_external_c", "outcount", outcount, datatype, &x);
    if (rc)
        return rc;
    MPI_Aint pos = position ? (MPI_Aint)*position : 0;
    rc = PMPI_Unpack_external(datarep, inbuf, (MPI_Aint)insize, position ? &pos : NULL, outbuf, x.n, x.t);
    cm_lc_free(&x);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}

int cm_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
    struct cm_lc x;
    int rc = cm_lc_one(MPI_COMM_WORLD, "MPI_Pack_external_size_c", "incount", incount, datatype, &x);
    if (rc)
        return rc;
    MPI_Aint s = 0;
    rc = PMPI_Pack_external_size(datarep, x.n, x.t, size ? &s : NULL);
    cm_lc_free(&x);
    if (rc == MPI_SUCCESS)
        *size = s;
    return rc;
}

/* Element-wise, so in pieces like the blocking collective reductions. */
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op)
{
    CM_ENTER_LARGE(Reduce_local_c);
    struct cm_lc_pieces p;
    int rc = cm_lc_pieces_begin(MPI_COMM_WORLD, "MPI_Reduce_local_c", count, datatype, &p);
    if (rc)
        return rc;
    do
        rc = PMPI_Reduce_local(cm_lc_at(inbuf, p.done), cm_lc_at(inoutbuf, p.done), p.n, datatype, op);
    while (rc == MPI_SUCCESS && cm_lc_pieces_next(&p));
    return rc;
}
