/*
 * mpit.h -- the tool information interface's shared pieces (src/mpi/mpit_*.c).
 *
 * MPI_T is usable before MPI_Init and after MPI_Finalize, so nothing here
 * may assume the library is initialized: the variable tables are static,
 * and the few values that exist only after MPI_Init (the world size, a
 * communicator) are looked up when used.  MPI_T calls never invoke an error
 * handler; they return MPI_T_ERR_* (or MPI_SUCCESS) and nothing else.
 */
#ifndef CM_MPI_MPIT_H
#define CM_MPI_MPIT_H

#include <pthread.h>

#include "mpi.h"
#include "core/state.h"

#include <stdint.h>

/* MPI_T_init_thread minus MPI_T_finalize calls so far (0: not initialized). */
extern int cm_mpit_depth;

/* MPI_T_ERR_NOT_INITIALIZED unless MPI_T is initialized. */
/* MPI_T's lists (pvar sessions and their handles, cvar handles) and its
 * init count: a tool's threads may call MPI_T at once (it grants the
 * level MPI_Init_thread would).  Recursive (a call that holds it may look
 * a session up again); taken at every level: nothing here is hot. */
extern pthread_mutex_t cm_mpit_lock;
#define CM_MPIT_LOCKED(expr) \
    ({ pthread_mutex_lock(&cm_mpit_lock); __typeof__(expr) v_ = (expr); pthread_mutex_unlock(&cm_mpit_lock); v_; })

#define CM_MPIT_CHECK() \
    do { if (cm_mpit_depth <= 0) return MPI_T_ERR_NOT_INITIALIZED; } while (0)
/* CM_MPIT_CHECK, then MPI_T_ERR_INVALID when bad (an argument the call
 * needs is NULL). */
#define CM_MPIT_CHECK_ARGS(bad) \
    do { CM_MPIT_CHECK(); if (bad) return MPI_T_ERR_INVALID; } while (0)
/* A call whose answer is one number (the get_num calls, MPI_T_category_changed): n in *num. */
static inline int cm_mpit_num(int *num, int n)
{
    CM_MPIT_CHECK_ARGS(!num);
    *num = n;
    return MPI_SUCCESS;
}

/* The standard's string out-parameter: with name NULL or *len 0 only the
 * length (with the terminating NUL) goes back; otherwise up to *len - 1
 * characters and a NUL are copied and *len is set to the count copied plus
 * one.  len NULL: nothing is returned. */
void cm_mpit_str(const char *s, char *out, int *len);

/* Control variables (mpit_cvar.c): one per row of core/config.def, with the
 * COREMPI_<COLL> row expanded to one variable per collective. */
int cm_mpit_cvar_count(void);
const char *cm_mpit_cvar_name(int i);

/* Performance variables (mpit_pvar.c). */
enum cm_mpit_pclass { CM_PV_COUNTER, CM_PV_LEVEL, CM_PV_HWM, CM_PV_STATE };
struct cm_mpit_pvar {
    const char *name, *desc;
    int var_class;        /* MPI_T_PVAR_CLASS_* */
    int bind;             /* MPI_T_BIND_NO_OBJECT or _MPI_COMM */
    int continuous;       /* 0: counts only between start and stop */
    int readonly;         /* 1: no write, no reset */
    int category;         /* index into mpit_category.c's table */
    int what;             /* which value (mpit_pvar.c) */
    int arg;              /* a collective, for the state variables */
};
int cm_mpit_pvar_count(void);
const struct cm_mpit_pvar *cm_mpit_pvar(int i);
/* Entries of pvar i for a handle bound to comm (world rank of each entry in
 * world_of, a copy the caller frees), or -1 with the MPI_T error in *err. */
int cm_mpit_pvar_bind(int i, void *obj_handle, int **world_of, int *err);
/* Current value of entry k of pvar i (a world rank for the per-peer ones). */
uint64_t cm_mpit_pvar_value(int i, int world_rank);
/* The enumeration of a state variable (MPI_T_ENUM_NULL for the others). */
MPI_T_enum cm_mpit_pvar_enum(int i);

/* Categories (mpit_category.c). */
enum { CM_CAT_P2P, CM_CAT_COLL, CM_CAT_LAUNCH, CM_CAT_PROF, CM_CAT_IO, CM_CAT_NUM };
int cm_mpit_cvar_category(int cvar);

/* Enumerations (mpit_init.c): item i is named items[i] and has value
 * base + i.  One per collective, for its algorithm state variable: item 0
 * is "none" (-1, no call yet), then the algorithms in algorithms.def order. */
struct MPI_ABI_T_enum {
    const char *name;
    int num;
    int base;
    const char **items;
};
/* The enumeration of collective coll (enum cm_coll_id), built at MPI_T_init. */
MPI_T_enum cm_mpit_coll_enum(int coll);
/* NULL unless e is one of the enumerations this library handed out. */
const struct MPI_ABI_T_enum *cm_mpit_enum_check(MPI_T_enum e);

#endif
