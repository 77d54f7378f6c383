/*
 * error.c -- error classes, strings, error handlers, and how errors end a job.
 *
 * Error codes are the error classes themselves, so user code comparing a
 * return value with MPI_ERR_RANK works.  The detailed line of the most recent
 * error of each class is kept, and MPI_Error_string appends it.
 */
#include "core/error.h"
#include "core/handle.h"
#include "core/state.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "core/comm.h"
#include "fe_env.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The predefined classes are 0..MPI_ERR_ABI (the last one the standard
 * added, MPI-5.0); MPI_ERR_LASTCODE is far above them (0x3fff in the
 * standard ABI) and is itself no class with a text of its own here. */
#define CM_ERR_NCLASSES (MPI_ERR_ABI + 1)
static const char *const class_text[CM_ERR_NCLASSES] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: receive buffer too small",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_KEYVAL] = "invalid keyval",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_BASE] = "invalid base",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO_NOKEY] = "no such info key",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_PORT] = "invalid port",
    [MPI_ERR_SERVICE] = "invalid service",
    [MPI_ERR_NAME] = "invalid name",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_INFO] = "invalid info",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_ASSERT] = "invalid assert",
    [MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "RMA synchronisation error",
    [MPI_ERR_FILE] = "invalid file",
    [MPI_ERR_NOT_SAME] = "arguments differ between processes",
    [MPI_ERR_AMODE] = "invalid access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_BAD_FILE] = "bad file name",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_RMA_RANGE] = "RMA target out of range",
    [MPI_ERR_RMA_ATTACH] = "RMA attach failed",
    [MPI_ERR_RMA_SHARED] = "RMA shared-memory error",
    [MPI_ERR_RMA_FLAVOR] = "wrong RMA window flavour",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large for the output argument",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    [MPI_ERR_ABI] = "the program and the library disagree on the ABI",
};

/* The detail line of the last error of each class. */
static char last_detail[CM_ERR_NCLASSES][480];

/* Error handlers by table index (core/handle.h): 0 NULL, 1..3 predefined
 * (FATAL, ABORT, RETURN: the handle values 0x141..0x143), user ones from
 * ERRH_USER.  Nothing below depends on that order: handles are compared
 * with the MPI_ERRORS_ names. */
#define ERRH_MAX 256
#define ERRH_USER 4
static MPI_Comm_errhandler_function *user_errh[ERRH_MAX];
/* A user handler lives while its handle or a communicator holds it
 * (MPI_Errhandler_free on an attached handler only drops the handle). */
static int errh_refs[ERRH_MAX];
static int errh_used = ERRH_USER;
/* MPI_THREAD_MULTIPLE: a slot's claim, its count and its release (a
 * handler is attached and freed by several threads at once; none of this
 * is on a communication path). */
static pthread_mutex_t errh_lock = PTHREAD_MUTEX_INITIALIZER;

/* The index of a user handler's handle, or -1 for a predefined or invalid one. */
static int user_index(MPI_Errhandler e)
{
    int i = cm_errh_index(e);
    return i >= ERRH_USER && i < ERRH_MAX ? i : -1;
}

void cm_errh_retain(MPI_Errhandler e)
{
    int i = user_index(e);
    if (i >= 0) {
        cm_mt_lock(&errh_lock);
        errh_refs[i]++;
        cm_mt_unlock(&errh_lock);
    }
}

void cm_errh_release(MPI_Errhandler e)
{
    int i = user_index(e);
    if (i < 0)
        return;
    cm_mt_lock(&errh_lock);
    CM_FAULT(mt_errh);
    if (--errh_refs[i] == 0)
        __atomic_store_n(&user_errh[i], NULL, __ATOMIC_RELAXED);
    cm_mt_unlock(&errh_lock);
}

int cm_world_rank_for_messages(void) { return cm_g.rank - cm_g.world_first; }

static int valid_errh(MPI_Errhandler e)
{
    int i = cm_errh_index(e);
    return i >= 1 && i < CM_RACY_LOAD(errh_used) && (i < ERRH_USER || CM_RACY_LOAD(user_errh[i]));
}

int cm_errh_valid(MPI_Errhandler e) { return valid_errh(e); }

void cm_errh_replace(MPI_Errhandler *slot, MPI_Errhandler e)
{
    cm_errh_retain(e);   /* first: e may be the handler the slot holds */
    cm_errh_release(*slot);
    *slot = e;
}

_Noreturn void cm_fatal(const char *call, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cm_g.rank >= 0)
        fprintf(stderr, "corempi: %s on rank %d: %s\n", call, cm_g.rank - cm_g.world_first, msg);
    else
        fprintf(stderr, "corempi: %s: %s\n", call, msg);
    cm_abort_job(MPI_ERR_INTERN, 1);
}

/* The calls MPI-4.1 (section 12.4.1, table 9) lets run before MPI_Init and
 * after MPI_Finalize, and MPI_Init itself. */
static int always_available(const char *call)
{
    static const char *const names[] = {
        "MPI_Init", "MPI_Init_thread", "MPI_Initialized", "MPI_Finalized", "MPI_Get_version",
        "MPI_Get_library_version", "MPI_Errhandler_free", "MPI_Error_string", "MPI_Error_class",
        "MPI_Add_error_class", "MPI_Add_error_code", "MPI_Add_error_string", "MPI_Remove_error_class",
        "MPI_Remove_error_code", "MPI_Remove_error_string", "MPI_Abi_get_version",
        "MPI_Abi_get_fortran_booleans", "MPI_Abi_set_fortran_booleans", "MPI_Abi_get_fortran_info",
        "MPI_Abi_set_fortran_info",
    };
    if (!strncmp(call, "MPI_Info_", 9) || !strncmp(call, "MPI_Session_", 12) || !strncmp(call, "MPI_T_", 6))
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(call, names[i]))
            return 1;
    return 0;
}

/* Under mpirun's forwarder (shm/segment.h, held_ranks) a fatal line that
 * points at another rank's starts with CM_SEG_HOLD_MARK: mpirun holds it
 * until the others' lines are out. */
static int line_held(int held)
{
    return held && cm_g.hdr && cm_g.rank >= 0 && (uint32_t)cm_g.rank < cm_g.hdr->held_ranks;
}

/* Record and raise one error on handler e; obj is the handle a user handler
 * receives a pointer to (a communicator, or a session: the two function
 * types differ only in that pointer's type); held: cm_error_held's. */
static int raise_on(MPI_Errhandler e, void *obj, int errclass, const char *call, int held, const char *fmt,
                    va_list ap)
{
    /* Outside MPI_Init..MPI_Finalize no object exists, so whatever a call
     * finds wrong there ("invalid communicator 1") hides the real mistake:
     * that it was called at all.  Checking here, where errors are raised,
     * covers every call and costs nothing on the paths that succeed. */
    if ((!cm_g.initialized || cm_g.finalized) && !always_available(call))
        cm_check_initialized_fail(call);
    if (cm_large_call) {
        /* "MPI_Send" raised inside MPI_Send_c is reported as MPI_Send_c, as
         * are the helpers a _c binding uses to build its temporary type */
        const char *lc = cm_call_name(cm_large_call);
        size_t n = strlen(call);
        if ((strlen(lc) == n + 2 && !strncmp(lc, call, n)) || !strcmp(call, "MPI_Type_contiguous_c") ||
            !strcmp(call, "MPI_Type_commit"))
            call = lc;
    }
    char msg[400], where[64];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (cm_g.rank >= 0)
        snprintf(where, sizeof where, "%s on rank %d", call, cm_g.rank - cm_g.world_first);
    else
        snprintf(where, sizeof where, "%s", call);
    if (errclass > 0 && errclass < CM_ERR_NCLASSES)
        snprintf(last_detail[errclass], sizeof last_detail[errclass], "%s: %s", where, msg);
    if (e == MPI_ERRORS_RETURN)
        return errclass;
    if (user_index(e) >= 0 && valid_errh(e)) {
        int code = errclass;
        user_errh[user_index(e)](obj, &code, call);
        return errclass;
    }
    held = line_held(held);
    fprintf(stderr, "%scorempi: %s: %s\n", held ? (char[]){ CM_SEG_HOLD_MARK, 0 } : "", where, msg);
    cm_abort_job(errclass, held ? 2 : 1);
}

static int raise_comm(MPI_Comm comm, int errclass, const char *call, int held, const char *fmt, va_list ap)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        c = cm_comm_lookup(MPI_COMM_WORLD, NULL);
    MPI_Comm h = c ? c->handle : MPI_COMM_NULL;
    return raise_on(c ? c->errh : MPI_ERRORS_ARE_FATAL, &h, errclass, call, held, fmt, ap);
}

/* Through raise_comm's va_list (cm_error_held has a fixed message). */
static int raise_comm_v(MPI_Comm comm, int errclass, const char *call, int held, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = raise_comm(comm, errclass, call, held, fmt, ap);
    va_end(ap);
    return rc;
}

int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = raise_comm(comm, errclass, call, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int cm_error_held(MPI_Comm comm, int errclass, const char *call, const char *msg)
{
    return raise_comm_v(comm, errclass, call, 1, "%s", msg);
}

int cm_error_on(MPI_Errhandler e, void *obj, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = raise_on(cm_errh_valid(e) ? e : MPI_ERRORS_ARE_FATAL, obj, errclass, call, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int cm_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *mpit = cm_err_mpit_text(errorcode);
    if (mpit) {
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", mpit);
        return MPI_SUCCESS;
    }
    if (errorcode > MPI_ERR_LASTCODE && cm_err_user_string(errorcode, string, MPI_MAX_ERROR_STRING)) {
        *resultlen = (int)strlen(string);
        return MPI_SUCCESS;
    }
    if (errorcode == MPI_ERR_LASTCODE) {
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "last error code");
        return MPI_SUCCESS;
    }
    if (errorcode < 0 || errorcode >= CM_ERR_NCLASSES || !class_text[errorcode]) {
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
        return MPI_ERR_ARG;
    }
    if (last_detail[errorcode][0])
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s (last: %s)", class_text[errorcode], last_detail[errorcode]);
    else
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_text[errorcode]);
    if (*resultlen >= MPI_MAX_ERROR_STRING)
        *resultlen = MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int cm_Error_class(int errorcode, int *errorclass)
{
    if (cm_err_mpit_text(errorcode)) {
        *errorclass = errorcode;
        return MPI_SUCCESS;
    }
    int user = errorcode > MPI_ERR_LASTCODE ? cm_err_user_class(errorcode) : -1;
    if (errorcode < 0 || (errorcode >= CM_ERR_NCLASSES && errorcode != MPI_ERR_LASTCODE && user < 0))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "invalid error code %d", errorcode);
    *errorclass = user >= 0 ? user : errorcode;
    return MPI_SUCCESS;
}

static int create_errh(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler, const char *call)
{
    if (!fn)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "the handler function is NULL");
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, errhandler, call);
    cm_mt_lock(&errh_lock);
    for (int i = ERRH_USER; i < ERRH_MAX; i++) {
        if (!user_errh[i]) {
            CM_FAULT(mt_errh);   /* another thread must not claim the same slot */
            errh_refs[i] = 1;
            __atomic_store_n(&user_errh[i], fn, __ATOMIC_RELEASE);
            if (i >= errh_used)
                __atomic_store_n(&errh_used, i + 1, __ATOMIC_RELEASE);
            cm_mt_unlock(&errh_lock);
            *errhandler = cm_errh_handle(i);
            return MPI_SUCCESS;
        }
    }
    cm_mt_unlock(&errh_lock);
    return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "too many error handlers (%d)", ERRH_MAX);
}

int cm_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create_errh(fn, errhandler, "MPI_Comm_create_errhandler");
}

/* A session handler is called with an MPI_Session * where a communicator
 * one gets an MPI_Comm *: same calling convention, one table. */
int cm_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create_errh((MPI_Comm_errhandler_function *)fn, errhandler, "MPI_Session_create_errhandler");
}

int cm_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "invalid communicator %ld", (long)(intptr_t)comm);
    if (!valid_errh(errhandler))
        return cm_error(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "invalid error handler %ld", (long)(intptr_t)errhandler);
    cm_errh_replace(&c->errh, errhandler);
    return MPI_SUCCESS;
}

int cm_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_get_errhandler", "invalid communicator %ld", (long)(intptr_t)comm);
    *errhandler = c->errh;
    cm_errh_retain(c->errh); /* the returned handle must be freed by the caller */
    return MPI_SUCCESS;
}

int cm_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    if (!cm_comm_lookup(comm, NULL))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_call_errhandler", "invalid communicator %ld", (long)(intptr_t)comm);
    cm_error(comm, errorcode, "MPI_Comm_call_errhandler", "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

int cm_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_Errhandler e = *errhandler;
    if (!valid_errh(e))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler %ld", (long)(intptr_t)e);
    cm_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* The end of every fatal path (and of MPI_Abort): tell mpirun through the
 * segment header which rank ended the job and how, then leave. */
_Noreturn void cm_abort_job(int code, int already_printed)
{
    if (cm_g.hdr) {
        uint32_t zero = 0;
        uint32_t flag = already_printed == 2 ? CM_SEG_ABORT_HELD : 1u + (already_printed ? 1u : 0u);
        if (atomic_compare_exchange_strong(&cm_g.hdr->abort_flag, &zero, flag)) {
            cm_g.hdr->abort_code = code;
            cm_g.hdr->abort_rank = cm_g.rank;
        }
        cm_g.self_ctl->exit_code = code;
        atomic_store_explicit(&cm_g.self_ctl->state, CM_RANK_ABORTED, memory_order_release);
    }
    fflush(stdout);
    _exit(code & 0xff ? code & 0xff : 1);
}
