/*
 * error.h -- raising MPI errors through a communicator's error handler.
 *
 * Every user-visible error goes through cm_error(): it formats one line,
 *   corempi: MPI_Send on rank 3: invalid destination 9 (communicator size 4)
 * and hands the class to the communicator's handler: ERRORS_ARE_FATAL prints
 * the line and ends the job; ERRORS_RETURN keeps the text for MPI_Error_string
 * and returns the class to the caller.
 */
#ifndef CM_CORE_ERROR_H
#define CM_CORE_ERROR_H

#include "mpi.h"

#include <stddef.h>

/* Raise errclass on comm (MPI_COMM_NULL or an invalid handle: use MPI_COMM_WORLD's handler).
 * call is the MPI function name ("MPI_Send").  Returns errclass when the handler returns. */
int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* End the whole job with code (mpirun reports it); already_printed: the
 * message is out, mpirun need not say more (2: it is out but held by mpirun,
 * cm_error_held). */
_Noreturn void cm_abort_job(int code, int already_printed);
/* cm_error for a message that names no argument but points at another
 * rank's error (a rank that only got the poison of a mismatched collective):
 * under mpirun's forwarder a fatal handler's line is held until the other
 * ranks' first error lines are out, up to a second (launch/watch.c), so that
 * the line naming the arguments comes first. */
int cm_error_held(MPI_Comm comm, int errclass, const char *call, const char *msg);
/* Fatal internal failure (out of memory, broken segment): print and end the job. */
_Noreturn void cm_fatal(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reference counting of user error handlers held by communicators. */
/* Raise an error on handler e (an invalid e: errors are fatal); a user
 * handler gets obj, a pointer to the object's handle (MPI_Session *, ...). */
int cm_error_on(MPI_Errhandler e, void *obj, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int cm_errh_valid(MPI_Errhandler e);
/* An object's handler slot takes e (references moved accordingly). */
void cm_errh_replace(MPI_Errhandler *slot, MPI_Errhandler e);
void cm_errh_retain(MPI_Errhandler e);
void cm_errh_release(MPI_Errhandler e);

/* The world rank of this process, or -1 before MPI_Init (for messages). */
int cm_world_rank_for_messages(void);

/* User error classes and codes (core/error_user.c).  cm_err_user_class:
 * the class of a user class or code, -1 if code is none; cm_err_user_string:
 * 1 and its string in out if code is a user class or code, else 0. */
int cm_err_user_class(int code);
int cm_err_user_string(int code, char *out, size_t size);
/* The text of an MPI_T error class (core/error_mpit.c), NULL for any other code. */
const char *cm_err_mpit_text(int code);
/* The highest error code in use: the MPI_LASTUSEDCODE attribute. */
int cm_err_lastused(void);

/* The start of an API call on an object: call (the name its errors give),
 * rc, and var, what lookup(args..., call, &rc) finds; when it finds nothing,
 * the call returns the error the lookup raised (in rc). */
#define CM_CALL_LOOKUP(type, var, name, lookup, ...) \
    static const char call[] = name;                 \
    int rc;                                          \
    type *var = lookup(__VA_ARGS__, call, &rc);      \
    if (!var)                                        \
        return rc

/* Return MPI_ERR_ARG, raised on comm for call, when the pointer argument arg
 * is NULL; the message names it ("arg is NULL"). */
#define CM_ARG_NOT_NULL(comm, arg, call)                                          \
    do {                                                                          \
        if (!(arg))                                                               \
            return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", #arg);         \
    } while (0)

#endif
