/*
 * topo_neighbor_init.c -- the persistent neighbourhood collectives
 * (MPI_Neighbor_*_init, MPI-4.0): the nonblocking form's checks under the
 * _init's name, its messages kept by topo_neighbor.c and posted again at
 * each MPI_Start (coll/persist.c has the request side).
 */
#include "coll/nbc.h"
#include "core/state.h"
#include "fe_topo.h"

int cm_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_OUTER();
    CM_PERSIST(Neighbor_allgather_init, PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner));
}

int cm_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
    MPI_Request *request)
{
    CM_OUTER();
    CM_PERSIST(Neighbor_allgatherv_init, PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &inner));
}

int cm_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_OUTER();
    CM_PERSIST(Neighbor_alltoall_init, PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner));
}

int cm_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_OUTER();
    CM_PERSIST(Neighbor_alltoallv_init, PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &inner));
}

int cm_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_OUTER();
    CM_PERSIST(Neighbor_alltoallw_init, PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &inner));
}
