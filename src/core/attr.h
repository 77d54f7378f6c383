/*
 * attr.h -- communicator attributes (core/attr.c): the hooks communicator
 * creation and destruction call.
 */
#ifndef CM_CORE_ATTR_H
#define CM_CORE_ATTR_H

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

#endif
