/*
 * via.c -- the host's collectives in the engine's signatures: where the
 * engine would fall back to a point-to-point algorithm of corempi's (no
 * area for a communicator), the wing hands the call to the host.  The
 * engine's convention sbuf == rbuf ("the input is already in rbuf") is the
 * host's MPI_IN_PLACE again.
 */
#include "wing/wing.h"

int cm_wing_via_barrier(MPI_Comm comm) { return PMPI_Barrier(comm); }

int cm_wing_via_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int cm_wing_via_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return PMPI_Reduce(rank == root && sbuf == rbuf ? MPI_IN_PLACE : sbuf, rbuf, count, dt, op, root, comm);
}

int cm_wing_via_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Allreduce(sbuf == rbuf ? MPI_IN_PLACE : sbuf, rbuf, count, dt, op, comm);
}

int cm_wing_via_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int cm_wing_via_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, MPI_Comm comm)
{
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* A rank's own block from one typed buffer to another (the engine's local
 * copies): the host moves it to itself. */
int cm_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    return PMPI_Sendrecv(src, scount, stype, 0, 0, dst, rcount, rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}
