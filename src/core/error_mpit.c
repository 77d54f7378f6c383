/*
 * error_mpit.c -- the MPI_T error classes (MPI_T_ERR_*, 1001..1018 in the
 * MPI-5.0 ABI) for MPI_Error_string and MPI_Error_class.  They are classes
 * of their own, above today's MPI_ERR_LASTCODE and inside the ABI's, so
 * error.c asks here before its own table.
 */
#include "core/error.h"

#include <stddef.h>

const char *cm_err_mpit_text(int code)
{
    switch (code) {
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T: the tool interface cannot be initialized";
    case MPI_T_ERR_NOT_ACCESSIBLE: return "MPI_T: the variable is not accessible";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T: the tool interface is not initialized (MPI_T_init_thread)";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T: not supported";
    case MPI_T_ERR_MEMORY: return "MPI_T: out of memory";
    case MPI_T_ERR_INVALID: return "MPI_T: invalid argument";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T: invalid index (variable, category, enumeration item, source or event)";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T: invalid item";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T: invalid performance variable session";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T: invalid handle";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T: no variable, category or event of that name";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T: out of handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T: out of sessions";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T: the control variable cannot be set at run time";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T: the performance variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T: the performance variable is continuous: no start or stop";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T: the performance variable cannot be read and reset atomically";
    }
    return NULL;
}
