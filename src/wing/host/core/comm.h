/*
 * core/comm.h for the wing: a communicator is the host's handle.  The engine
 * asks only for its index (to recognise its last area) and its size.
 */
#ifndef CM_CORE_COMM_H
#define CM_CORE_COMM_H
#include <stdint.h>
#include <mpi.h>

struct cm_comm {
    int size;
};
/* The wing's number for a host communicator it serves (wing/area.c), -1
 * for any other; the last one asked is answered in line. */
extern MPI_Comm cm_wing_last_comm;
extern int cm_wing_last_index;
int cm_wing_comm_index_slow(MPI_Comm h);
static inline int cm_comm_index(MPI_Comm h)
{
    return h == cm_wing_last_comm ? cm_wing_last_index : cm_wing_comm_index_slow(h);
}
static inline MPI_Comm cm_comm_plain(MPI_Comm h) { return h; }
static inline MPI_Comm cm_coll_comm(MPI_Comm h) { return h; }
struct cm_comm *cm_comm_lookup(MPI_Comm h, uint16_t *ctx);
#endif
