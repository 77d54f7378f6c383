/*
 * op_reduce_local.c -- MPI_Reduce_local: inoutbuf = inbuf (op) inoutbuf, in this process.
 *
 * Predefined datatypes go straight to the loops.  A user op gets any datatype
 * as is (the user function knows its layout).  A predefined op on a derived
 * datatype needs the datatype engine to walk the layout: it provides
 * cm_dt_reduce_local_derived (weak here, so this file links without it).
 */
#include "core/op.h"
#include "core/dt_basic.h"
#include "core/datatype.h"
#include "core/error.h"

#pragma weak MPI_Reduce_local = PMPI_Reduce_local

static const char cm_call[] = "MPI_Reduce_local";

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    /* Usable, not only live: the collectives fold through this call, and a
     * nonblocking one may still run after the user freed its op (it holds
     * a reference, core/op.h). */
    if (!cm_op_is_usable(op))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_OP, cm_call, "invalid operation handle %ld", (long)(intptr_t)op);
    if (count < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, cm_call, "negative count %d", count);
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, cm_call,
                        "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
    if (count > 0 && (!inbuf || !inoutbuf))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, cm_call,
                        "%s is NULL with count %d", inbuf ? "inoutbuf" : "inbuf", count);

    if (cm_dt_is_basic(datatype)) {
        if (!cm_op_allowed(op, datatype))
            return cm_error(MPI_COMM_WORLD, MPI_ERR_OP, cm_call,
                            "operation %s is not defined on %s", cm_op_name(op),
                            cm_dt_basic_name(datatype));
        int rc = cm_op_apply(op, datatype, inbuf, inoutbuf, (size_t)count);
        return rc == MPI_SUCCESS ? rc
                                 : cm_error(MPI_COMM_WORLD, rc, cm_call, "reduction failed");
    }

    if (datatype == MPI_DATATYPE_NULL)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, cm_call, "datatype is MPI_DATATYPE_NULL");
    int rc = cm_dt_check(MPI_COMM_WORLD, datatype, cm_call, "datatype");
    if (rc != MPI_SUCCESS)
        return rc;

    if (!cm_op_is_predefined(op)) {
        rc = cm_op_apply(op, datatype, inbuf, inoutbuf, (size_t)count);
        return rc == MPI_SUCCESS ? rc
                                 : cm_error(MPI_COMM_WORLD, rc, cm_call, "reduction failed");
    }
    if (!cm_dt_reduce_local_derived)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, cm_call,
                        "%s on a derived datatype is not supported yet", cm_op_name(op));
    rc = cm_dt_reduce_local_derived(inbuf, inoutbuf, count, datatype, op);
    if (rc == MPI_ERR_OP)
        return cm_error(MPI_COMM_WORLD, rc, cm_call,
                        "operation %s is not defined on the basic type of datatype %ld",
                        cm_op_name(op), (long)(intptr_t)datatype);
    if (rc != MPI_SUCCESS)
        return cm_error(MPI_COMM_WORLD, rc, cm_call, "reduction on datatype %ld failed", (long)(intptr_t)datatype);
    return MPI_SUCCESS;
}
