/*
 * topo_cart.h -- what the Cartesian calls (mpi/topo_cart.c) share with the
 * neighbourhood collectives (mpi/topo_neighbor.c).
 */
#ifndef CM_MPI_TOPO_CART_H
#define CM_MPI_TOPO_CART_H

#include "core/topo.h"

/* Cartesian neighbours of rank along direction at displacement disp
 * (MPI_PROC_NULL beyond a non-periodic edge). */
void cm_cart_shift(const struct cm_topo *t, int rank, int direction, int disp, int *source, int *dest);

#endif
