/*
 * attr.h -- communicator attributes (core/attr.c): the hooks communicator
 * creation and destruction call.
 */
#ifndef CM_CORE_ATTR_H
#define CM_CORE_ATTR_H

#include "mpi.h"

struct cm_comm;

/* MPI_TAG_UB, the attribute every communicator carries; p2p checks tags
 * against it. */
#define CM_TAG_UB 0x7fffffff

/* Comm_dup: run each attribute's copy callback from oldc into newc (which has
 * none yet).  Returns MPI_SUCCESS or the first callback's error code; on error
 * newc is left without attributes (copies already made were deleted). */
int cm_attr_copy_all(struct cm_comm *oldc, struct cm_comm *newc);

/* Comm_free, and Finalize for WORLD and SELF: run the delete callbacks (last
 * set first) and drop the attributes.  Stops at the first callback that fails
 * and returns its code; that attribute and the older ones stay attached. */
int cm_attr_delete_all(struct cm_comm *c);

/* The object an attribute call works on: a communicator, a datatype or a window
 * (kind), its handle (for the callbacks) and where its list lives. */
enum { CM_ATTR_COMM, CM_ATTR_TYPE, CM_ATTR_WIN };
struct cm_attr_obj {
    int kind;
    MPI_Comm comm;      /* kind CM_ATTR_COMM */
    MPI_Datatype type;  /* kind CM_ATTR_TYPE */
    void **attrs;
    MPI_Win win;        /* kind CM_ATTR_WIN (src/osc/obj.c) */
};

/* Type_dup and Type_free (core/attr_type.c): run the copy callbacks from
 * oldtype into newtype / the delete callbacks of type; MPI_SUCCESS or the
 * first failing callback's code (as the hooks above). */
int cm_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype);
int cm_attr_type_free(MPI_Datatype type);

/* The same as the two hooks above, for any kind of object. */
int cm_attr_obj_copy_all(const struct cm_attr_obj *oldo, const struct cm_attr_obj *newo);
int cm_attr_obj_delete_all(const struct cm_attr_obj *o);

/* The bodies of MPI_<Kind>_create_keyval/free_keyval/set_attr/get_attr/
 * delete_attr once the object is known valid; errors are raised naming call.
 * copy_fn/delete_fn have the kind's callback type. */
int cm_attr_keyval_create(int kind, void (*copy_fn)(void), void (*delete_fn)(void), int *keyval, void *extra,
                          const char *call);
int cm_attr_keyval_free(int kind, int *keyval, const char *call);
int cm_attr_set(const struct cm_attr_obj *o, int keyval, void *value, const char *call);
int cm_attr_get(const struct cm_attr_obj *o, int keyval, void *value, int *flag, const char *call);
int cm_attr_delete(const struct cm_attr_obj *o, int keyval, const char *call);

#endif
