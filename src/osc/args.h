/*
 * args.h -- argument checks shared by the operations (rma.c, acc.c).
 * Each raises on the window's handler and returns the class, or 0.
 */
#ifndef CM_OSC_ARGS_H
#define CM_OSC_ARGS_H

#include "osc/osc.h"

/* Counts not negative, both types valid and committed, the same data size. */
int cm_osc_types(struct cm_win *w, const char *call, int ocount, MPI_Datatype odt, int tcount, MPI_Datatype tdt,
                 struct cm_datatype **ot, struct cm_datatype **tt);
/* The target's location (range checked, MPI_ERR_RMA_RANGE). */
int cm_osc_locate(struct cm_win *w, const char *call, int rank, MPI_Aint disp, int tcount,
                  const struct cm_datatype *tt, struct cm_osc_tgt *tgt);
/* begin + types + locate: the window, or NULL with *rc the class raised, or
 * MPI_SUCCESS when there is nothing to do (MPI_PROC_NULL, no data). */
struct cm_win *cm_osc_prepare(const char *call, MPI_Win win, int rank, MPI_Aint disp, int ocount, MPI_Datatype odt,
                              int tcount, MPI_Datatype tdt, struct cm_datatype **ot, struct cm_datatype **tt,
                              struct cm_osc_tgt *tgt, int *rc);
/* A refused single copy (errno says why). */
/* Switch w to active messages (am.c) after a refused single copy; rc is
 * the active-message call's result: MPI_SUCCESS or the error raised. */
int cm_osc_fallback(struct cm_win *w, const char *call, int rc);

#endif
