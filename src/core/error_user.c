/*
 * error_user.c -- error classes and codes the program adds at run time
 * (MPI_Add_error_class/code/string and their MPI-4.1 Remove_ counterparts).
 *
 * User codes are numbered after MPI_ERR_LASTCODE.  Invariants:
 *   - a slot is in use iff ucode[i].used; ucode[i].cls is the slot's own
 *     number for a class, and the number of a predefined or user class for a
 *     code;
 *   - lastused is the highest number in use, MPI_ERR_LASTCODE when none is:
 *     it is what the MPI_LASTUSEDCODE attribute shows, and new numbers are
 *     taken above it so that every value the program ever saw from
 *     MPI_LASTUSEDCODE stays an upper bound of the codes alive then.
 * All of these calls are allowed before MPI_Init and after MPI_Finalize, so
 * nothing here depends on the library being initialised; a mutex keeps
 * threads of an MPI_THREAD_MULTIPLE program apart.
 */
#include "core/error.h"
#include "fe_env.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UCODE_MAX 1024

struct ucode {
    int used;
    int cls;
    char *text; /* NULL: the empty string (MPI-4.1 9.5) */
};

static struct ucode ucode[UCODE_MAX];
static int lastused = MPI_ERR_LASTCODE;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct ucode *slot(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < UCODE_MAX && ucode[i].used ? &ucode[i] : NULL;
}

int cm_err_lastused(void)
{
    return lastused;
}

int cm_err_user_class(int code)
{
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(code);
    int cls = u ? u->cls : -1;
    pthread_mutex_unlock(&lock);
    return cls;
}

int cm_err_user_string(int code, char *out, size_t size)
{
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(code);
    if (u)
        snprintf(out, size, "%s", u->text ? u->text : "");
    pthread_mutex_unlock(&lock);
    return u != NULL;
}

/* Take the number above lastused; -1 when the table is full. */
static int take(int cls_or_self)
{
    int i = lastused - MPI_ERR_LASTCODE;
    if (i >= UCODE_MAX)
        return -1;
    int code = lastused + 1;
    ucode[i] = (struct ucode){ 1, cls_or_self < 0 ? code : cls_or_self, NULL };
    lastused = code;
    return code;
}

static void drop(struct ucode *u)
{
    free(u->text);
    *u = (struct ucode){ 0, 0, NULL };
    while (lastused > MPI_ERR_LASTCODE && !slot(lastused))
        lastused--;
}

static int is_class(int cls)
{
    if (cls >= 0 && cls <= MPI_ERR_LASTCODE)
        return 1;
    struct ucode *u = slot(cls);
    return u && u->cls == cls;
}

int cm_Add_error_class(int *errorclass)
{
    static const char call[] = "MPI_Add_error_class";
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, errorclass, call);
    pthread_mutex_lock(&lock);
    int c = take(-1);
    pthread_mutex_unlock(&lock);
    if (c < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "too many user error classes and codes (%d)", UCODE_MAX);
    *errorclass = c;
    return MPI_SUCCESS;
}

int cm_Add_error_code(int errorclass, int *errorcode)
{
    static const char call[] = "MPI_Add_error_code";
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, errorcode, call);
    pthread_mutex_lock(&lock);
    int c = is_class(errorclass) ? take(errorclass) : -2;
    pthread_mutex_unlock(&lock);
    if (c == -2)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorclass %d is not an error class", errorclass);
    if (c < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "too many user error classes and codes (%d)", UCODE_MAX);
    *errorcode = c;
    return MPI_SUCCESS;
}

int cm_Add_error_string(int errorcode, const char *string)
{
    static const char call[] = "MPI_Add_error_string";
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, string, call);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "string is %zu characters, at most %d allowed",
                        strlen(string), MPI_MAX_ERROR_STRING - 1);
    if (errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorcode %d is predefined; its string cannot change",
                        errorcode);
    char *copy = strdup(string);
    if (!copy)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(errorcode);
    if (u) {
        free(u->text);
        u->text = copy;
    }
    pthread_mutex_unlock(&lock);
    if (!u) {
        free(copy);
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorcode %d was not added by MPI_Add_error_class/code",
                        errorcode);
    }
    return MPI_SUCCESS;
}

/* MPI-4.1 9.5: a class goes only when no code refers to it any more. */
int cm_Remove_error_class(int errorclass)
{
    static const char call[] = "MPI_Remove_error_class";
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(errorclass);
    int bad = !u || u->cls != errorclass, codes = 0;
    for (int i = 0; !bad && i < UCODE_MAX; i++)
        codes += ucode[i].used && ucode[i].cls == errorclass && i + MPI_ERR_LASTCODE + 1 != errorclass;
    if (!bad && !codes)
        drop(u);
    pthread_mutex_unlock(&lock);
    if (bad)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorclass %d is not a user error class", errorclass);
    if (codes)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorclass %d still has %d error code(s)", errorclass,
                        codes);
    return MPI_SUCCESS;
}

int cm_Remove_error_code(int errorcode)
{
    static const char call[] = "MPI_Remove_error_code";
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(errorcode);
    int bad = !u || u->cls == errorcode, text = !bad && u->text;
    /* MPI-4.1 9.5: erroneous while the code still has its string */
    if (!bad && !text)
        drop(u);
    pthread_mutex_unlock(&lock);
    if (bad)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorcode %d is not a user error code", errorcode);
    if (text)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                        "errorcode %d still has an error string: remove it first (MPI_Remove_error_string)",
                        errorcode);
    return MPI_SUCCESS;
}

int cm_Remove_error_string(int errorcode)
{
    static const char call[] = "MPI_Remove_error_string";
    pthread_mutex_lock(&lock);
    struct ucode *u = slot(errorcode);
    if (u) {
        free(u->text);
        u->text = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (!u)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorcode %d was not added by MPI_Add_error_class/code",
                        errorcode);
    return MPI_SUCCESS;
}
