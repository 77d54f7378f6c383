/*
 * abi_handles.c -- core/handle.h and core/status.h in their MPI-5.0 form.
 *
 * Compiled against the MPI Forum's ABI header as mpi.h, not corempi's, so
 * the tables' indices are those of the standard's handle values.  Checks: predefined handles map to
 * the indices the tables use (NULL 0, ...); created indices make values that
 * are not 0, not below 4096, fit an int, and map back; a handle of another
 * kind maps to -1; the collective bit of communicators is free; the status's 64-bit byte count and cancelled flag live
 * in MPI_internal and survive an odd (int-only) alignment.  Datatypes and
 * ops: every entry of the dense lists maps to the standard's handle of its
 * name and back (the Fortran named types included), and a value in the
 * datatype range that names no type maps to no index.
 */
#include "mpi.h"
#include "core/handle.h"
#include "core/comm.h"
#include "core/status.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int bad;
#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) {                     \
            printf("abi_handles: ");       \
            printf(__VA_ARGS__);           \
            printf("\n");                  \
            bad++;                         \
        }                                  \
    } while (0)

/* The half floats are not in the standard's header: corempi's values
 * (include/mpi.h, docs/abi.md). */
#ifndef MPI_FLOAT16
#define MPI_FLOAT16 ((MPI_Datatype)0x24a)
#define MPI_BFLOAT16 ((MPI_Datatype)0x24e)
#endif

/* One predefined datatype or op: dense index <-> the standard's handle. */
#define DT_ROUND(n, b)                                                                       \
    EXPECT(cm_dt_handle(CM_DTI_MPI_##n) == MPI_##n && cm_dt_index(MPI_##n) == CM_DTI_MPI_##n, \
           "MPI_" #n ": dense %d, handle 0x%lx", CM_DTI_MPI_##n, (unsigned long)(uintptr_t)cm_dt_handle(CM_DTI_MPI_##n));
#define OP_ROUND(n, b)                                                                       \
    EXPECT(cm_op_handle(CM_OPI_MPI_##n) == MPI_##n && cm_op_index(MPI_##n) == CM_OPI_MPI_##n, \
           "MPI_" #n ": dense %d, handle 0x%lx", CM_OPI_MPI_##n, (unsigned long)(uintptr_t)cm_op_handle(CM_OPI_MPI_##n));

/* Round trip of created indices of one kind, and their values' range. */
#define CREATED_FROM(name, Type, first)                                                      \
    for (int i = first; i < CM_H_INDEX_MAX; i = i * 3 + 1) {                                 \
        Type h = cm_##name##_handle(i);                                                      \
        uintptr_t v = (uintptr_t)h;                                                          \
        EXPECT(v >= 4096 && v <= INT_MAX, #name " index %d: value 0x%lx", i, (unsigned long)v); \
        EXPECT(cm_##name##_index(h) == i, #name " index %d: back to %d", i, cm_##name##_index(h)); \
    }
#define CREATED(name, Type) CREATED_FROM(name, Type, 4)

int main(void)
{
    EXPECT(cm_group_index(MPI_GROUP_NULL) == 0 && cm_group_index(MPI_GROUP_EMPTY) == 1, "group predefined");
    EXPECT(cm_req_index(MPI_REQUEST_NULL) == 0, "MPI_REQUEST_NULL is not index 0");
    EXPECT(cm_info_index(MPI_INFO_NULL) == 0 && cm_info_index(MPI_INFO_ENV) == 1, "info predefined");
    EXPECT(cm_errh_index(MPI_ERRHANDLER_NULL) == 0 && cm_errh_index(MPI_ERRORS_ARE_FATAL) == 1 &&
               cm_errh_index(MPI_ERRORS_ABORT) == 2 && cm_errh_index(MPI_ERRORS_RETURN) == 3,
           "errhandler predefined");
    EXPECT(cm_msg_index(MPI_MESSAGE_NULL) == 0 && cm_msg_index(MPI_MESSAGE_NO_PROC) == 1, "message predefined");
    EXPECT(cm_group_handle(1) == MPI_GROUP_EMPTY && cm_errh_handle(3) == MPI_ERRORS_RETURN &&
               cm_info_handle(1) == MPI_INFO_ENV && cm_req_handle(0) == MPI_REQUEST_NULL,
           "predefined indices do not give the standard's handles");
    CREATED(group, MPI_Group)
    CREATED(req, MPI_Request)
    CREATED(info, MPI_Info)
    CREATED(errh, MPI_Errhandler)
    CREATED(msg, MPI_Message)
    CREATED(comm, MPI_Comm)
    CREATED_FROM(dt, MPI_Datatype, CM_DT_NUM_PREDEFINED)
    CREATED_FROM(op, MPI_Op, CM_OP_NUM_PREDEFINED)
#define CM_DT(n, b, c, T) DT_ROUND(n, b)
#include "core/dt_predefined.def"
#undef CM_DT
    CM_OP_PREDEFINED_LIST(OP_ROUND)
    EXPECT(cm_dt_index(MPI_DATATYPE_NULL) == 0 && cm_dt_handle(0) == MPI_DATATYPE_NULL, "MPI_DATATYPE_NULL is not index 0");
    EXPECT(cm_op_index(MPI_OP_NULL) == 0 && cm_op_handle(0) == MPI_OP_NULL, "MPI_OP_NULL is not index 0");
    EXPECT(cm_dt_index((MPI_Datatype)0x2ff) == -1 && cm_dt_index((MPI_Datatype)0x21f) == -1 &&
               cm_dt_index((MPI_Datatype)0x2f0) == -1, "a value with no predefined type maps to an index");
    EXPECT(cm_dt_index((MPI_Datatype)(uintptr_t)MPI_SUM) == -1 && cm_op_index((MPI_Op)(uintptr_t)MPI_INT) == -1,
           "an op is taken for a datatype or the reverse");
    EXPECT(cm_comm_index(MPI_COMM_NULL) == 0 && cm_comm_index(MPI_COMM_WORLD) == 1 &&
               cm_comm_index(MPI_COMM_SELF) == 2, "comm predefined");
    /* The collective twin's bit sits above every kind and index bit. */
    MPI_Comm made = cm_comm_handle(CM_H_INDEX_MAX);
    EXPECT(cm_comm_is_coll(cm_coll_comm(made)) && !cm_comm_is_coll(made) &&
               cm_comm_plain(cm_coll_comm(made)) == made && cm_comm_plain(cm_coll_comm(MPI_COMM_WORLD)) == MPI_COMM_WORLD,
           "CM_COMM_COLL_BIT collides with a handle's bits");

    /* Another kind's handle, another kind's predefined value, 0: no index. */
    EXPECT(cm_group_index((MPI_Group)(uintptr_t)cm_req_handle(7)) == -1, "a request handle is taken for a group");
    EXPECT(cm_info_index((MPI_Info)(uintptr_t)MPI_GROUP_EMPTY) == -1, "MPI_GROUP_EMPTY is taken for an info");
    EXPECT(cm_req_index((MPI_Request)0) == -1, "the value 0 is taken for a request");

    /* Byte count beyond 32 bits and the flag, in a status at int alignment. */
    union { MPI_Status st[2]; char raw[2 * sizeof(MPI_Status) + sizeof(int)]; } u;
    memset(&u, 0xa5, sizeof u);
    MPI_Status *st = (MPI_Status *)(void *)(u.raw + sizeof(int));
    cm_status_set_private(st, (1LL << 40) + 3, 1);
    EXPECT(cm_status_bytes(st) == (1LL << 40) + 3, "status bytes %lld", cm_status_bytes(st));
    EXPECT(cm_status_cancelled(st) == 1, "status cancelled flag lost");
    cm_status_set_cancelled(st, 0);
    EXPECT(cm_status_bytes(st) == (1LL << 40) + 3 && !cm_status_cancelled(st), "cancelled overwrote bytes");
    EXPECT(sizeof(MPI_Status) == 8 * sizeof(int), "MPI_Status is not 8 ints");

    printf("abi_handles: %s\n", bad ? "FAILED" : "ok");
    return bad != 0;
}
