/*
 * info.c -- MPI_Info: ordered (key, value) string lists and MPI_INFO_ENV.
 * (Communicator hints: core/info_comm.c.)
 *
 * Keys keep the order in which they were first set, because Info_get_nthkey
 * exposes an order and users expect Info_dup to preserve it.  Objects are few
 * and small, so lookups are linear.
 *
 * Errors not tied to a communicator are raised on MPI_COMM_SELF (MPI 4.0,
 * section 9.3).
 */
#include "core/info.h"
#include "core/handle.h"
#include "core/error.h"
#include "core/state.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

struct info_entry {
    char *key, *value;
};

struct cm_info {
    struct info_entry *e;
    int n, cap;
    int outside; /* made before MPI_Init or after MPI_Finalize: outlives Finalize */
};

static struct cm_info **table; /* index = handle; [0] unused, [1] = MPI_INFO_ENV */
static int table_len, table_cap;
static struct cm_info *env_info; /* MPI_INFO_ENV, built on first use */
/* MPI_THREAD_MULTIPLE: a slot's claim and release, the table's growth and
 * MPI_INFO_ENV's first build; lookups take none (core/thread.h).  An info
 * object itself is the program's: two threads may not change one at once. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cm_info *lookup(MPI_Info h);

/* ---- the object ---------------------------------------------------- */

static int find(const struct cm_info *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->e[i].key, key) == 0)
            return i;
    return -1;
}

static int put(struct cm_info *in, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int i = find(in, key);
    if (i >= 0) {
        free(in->e[i].value);
        in->e[i].value = v;
        return MPI_SUCCESS;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        struct info_entry *e = realloc(in->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        in->e = e;
        in->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    in->e[in->n++] = (struct info_entry){ k, v };
    return MPI_SUCCESS;
}

static void destroy(struct cm_info *in)
{
    if (!in)
        return;
    for (int i = 0; i < in->n; i++) {
        free(in->e[i].key);
        free(in->e[i].value);
    }
    free(in->e);
    free(in);
}

/* ---- the handle table ---------------------------------------------- */

/* Slots 0 (NULL) and 1 (ENV) are never handed out by table_add. */
static MPI_Info table_add(struct cm_info *in)
{
    in->outside = !cm_g.initialized || cm_g.finalized;
    cm_mt_lock(&table_lock);
    CM_FAULT(mt_info);   /* another thread must not claim the same slot */
    int i = cm_table_claim((void ***)&table, &table_len, &table_cap, 2, 32, in);
    cm_mt_unlock(&table_lock);
    return i < 0 ? MPI_INFO_NULL : cm_info_handle(i);
}

/* The whole command line from /proc: argv[0] and the arguments joined by spaces. */
static void env_command_line(struct cm_info *in)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    char buf[MPI_MAX_INFO_VAL + 1];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (n == 0)
        return;
    buf[n] = 0;
    put(in, "command", buf);
    size_t first = strlen(buf) + 1;
    if (first < n) {
        for (size_t i = first; i + 1 < n; i++)
            if (buf[i] == 0)
                buf[i] = ' ';
        put(in, "argv", buf + first);
    }
}

/* argv[0] as "command", the rest joined by spaces as "argv". */
static void env_args(struct cm_info *in, int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    if (argc < 1 || !argv[0])
        return;
    put(in, "command", argv[0]);
    size_t n = 0;
    buf[0] = 0;
    for (int i = 1; i < argc && argv[i]; i++)
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", i > 1 ? " " : "", argv[i]),
            n = n < sizeof buf ? n : sizeof buf - 1;
    if (argc > 1)
        put(in, "argv", buf);
}

/* What this process was started with, as far as one machine knows
 * (MPI-4.1 11.10.1 lists the keys): argc < 0 reads the command line from
 * /proc.  "soft" and "file" are not known to corempi and are left out. */
static struct cm_info *build_env_from(int argc, char **argv)
{
    struct cm_info *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    if (argc < 0)
        env_command_line(in);
    else
        env_args(in, argc, argv);
    char buf[MPI_MAX_INFO_VAL + 1];
    if (cm_g.initialized && !cm_g.finalized) {
        snprintf(buf, sizeof buf, "%d", cm_g.world_size);
        put(in, "maxprocs", buf);
        int t = cm_g.thread_level;
        put(in, "thread_level", t == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
                                : t == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                : t == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                             : "MPI_THREAD_SINGLE");
    } else if (cm_config_load(), cm_config_text(COREMPI_SIZE)) {
        /* before Init under mpirun: the job's size is already known */
        put(in, "maxprocs", cm_config_text(COREMPI_SIZE));
    }
    if (gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = 0;
        put(in, "host", buf);
    }
    struct utsname u;
    if (uname(&u) == 0)
        put(in, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        put(in, "wdir", buf);
    return in;
}

static struct cm_info *build_env(void)
{
    return build_env_from(-1, NULL);
}

static struct cm_info *lookup(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        struct cm_info *e = __atomic_load_n(&env_info, __ATOMIC_ACQUIRE);
        if (!e) {
            cm_mt_lock(&table_lock);
            if (!(e = env_info))
                __atomic_store_n(&env_info, e = build_env(), __ATOMIC_RELEASE);
            cm_mt_unlock(&table_lock);
        }
        return e;
    }
    int i = cm_info_index(h);
    if (i <= cm_info_index(MPI_INFO_ENV) || i >= CM_RACY_LOAD(table_len))
        return NULL;
    return CM_RACY_LOAD(CM_RACY_LOAD(table)[i]);
}

void cm_info_release(MPI_Info info)
{
    int i = cm_info_index(info);
    struct cm_info *in = NULL;
    cm_mt_lock(&table_lock);
    if (i > cm_info_index(MPI_INFO_ENV) && i < table_len && (in = table[i]))
        __atomic_store_n(&table[i], NULL, __ATOMIC_RELAXED);
    cm_mt_unlock(&table_lock);
    destroy(in);
}

/* Info objects made inside Init..Finalize go with Finalize (the library's
 * own and those the program forgot); those made outside stay usable, as
 * MPI-4.0 allows Info calls at any time.  MPI_INFO_ENV is rebuilt on next
 * use, since maxprocs and thread_level change with Init. */
void cm_info_finalize(void)
{
    int kept = 0;
    for (int i = 0; i < table_len; i++) {
        if (table[i] && table[i]->outside) {
            kept++;
            continue;
        }
        destroy(table[i]);
        table[i] = NULL;
    }
    if (!kept) {
        free(table);
        table = NULL;
        table_len = table_cap = 0;
    }
    destroy(env_info);
    env_info = NULL;
}

/* ---- argument checks ----------------------------------------------- */

static int bad_info(const char *call, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "info is MPI_INFO_NULL");
    return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "invalid info handle %ld", (long)(intptr_t)info);
}

/* Keys are stored with their terminating NUL in buffers of MPI_MAX_INFO_KEY
 * characters (as Info_get_nthkey's caller provides), so a key may have at most
 * MPI_MAX_INFO_KEY - 1 characters. */
static int check_key(const char *call, const char *key)
{
    if (!key)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_KEY, call, "key is NULL");
    size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
    if (n == 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_KEY, call, "key is empty");
    if (n >= MPI_MAX_INFO_KEY)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_KEY, call, "key is longer than %d characters (MPI_MAX_INFO_KEY - 1)",
                        MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

/* No cm_check_initialized in this file: MPI-4.0 allows the Info calls
 * before MPI_Init and after MPI_Finalize. */
static struct cm_info *info_or_error(MPI_Info info, const char *call, int *rc)
{
    struct cm_info *in = lookup(info);
    *rc = in ? MPI_SUCCESS : bad_info(call, info);
    return in;
}

/* ---- MPI calls ------------------------------------------------------ */

int cm_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    if (!info)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "info pointer is NULL");
    struct cm_info *in = calloc(1, sizeof *in);
    MPI_Info h = in ? table_add(in) : MPI_INFO_NULL;
    if (h == MPI_INFO_NULL) {
        free(in);
        return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *info = h;
    return MPI_SUCCESS;
}

int cm_Info_set(MPI_Info info, const char *key, const char *value)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_set", info_or_error, info);
    if ((rc = check_key(call, key)))
        return rc;
    if (info == MPI_INFO_ENV)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "MPI_INFO_ENV is predefined and cannot be modified");
    if (!value)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_VALUE, call, "value is NULL");
    if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_VALUE, call, "value of key \"%s\" is longer than MPI_MAX_INFO_VAL (%d)",
                        key, MPI_MAX_INFO_VAL);
    if ((rc = put(in, key, value)))
        return cm_error(MPI_COMM_SELF, rc, call, "out of memory");
    return MPI_SUCCESS;
}

int cm_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_get", info_or_error, info);
    if ((rc = check_key(call, key)))
        return rc;
    if (valuelen < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "valuelen %d is negative", valuelen);
    if (!flag || (!value && valuelen > 0))
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s is NULL", flag ? "value" : "flag");
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* valuelen excludes the NUL: the buffer holds valuelen + 1 characters. */
        size_t n = strlen(in->e[i].value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, in->e[i].value, n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}

int cm_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_get_string", info_or_error, info);
    if ((rc = check_key(call, key)))
        return rc;
    if (!buflen || !flag)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s is NULL", flag ? "buflen" : "flag");
    if (*buflen < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "buflen %d is negative", *buflen);
    if (!value && *buflen > 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "value is NULL");
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    /* buflen counts the NUL; on return it is the size needed for the whole value. */
    size_t n = strlen(in->e[i].value);
    if (*buflen > 0) {
        size_t c = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
        memcpy(value, in->e[i].value, c);
        value[c] = 0;
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}

int cm_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_get_valuelen", info_or_error, info);
    if ((rc = check_key(call, key)))
        return rc;
    if (!valuelen || !flag)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s is NULL", flag ? "valuelen" : "flag");
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->e[i].value);
    return MPI_SUCCESS;
}

int cm_Info_delete(MPI_Info info, const char *key)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_delete", info_or_error, info);
    if ((rc = check_key(call, key)))
        return rc;
    if (info == MPI_INFO_ENV)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "MPI_INFO_ENV is predefined and cannot be modified");
    int i = find(in, key);
    if (i < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO_NOKEY, call, "key \"%s\" is not in info %ld", key, (long)(intptr_t)info);
    free(in->e[i].key);
    free(in->e[i].value);
    memmove(in->e + i, in->e + i + 1, (size_t)(in->n - i - 1) * sizeof *in->e);
    in->n--;
    return MPI_SUCCESS;
}

/* Copy without raising errors: used by Info_dup and cm_info_copy. */
static int dup_object(const struct cm_info *src, MPI_Info *out)
{
    struct cm_info *in = calloc(1, sizeof *in);
    if (!in)
        return MPI_ERR_NO_MEM;
    for (int i = 0; src && i < src->n; i++)
        if (put(in, src->e[i].key, src->e[i].value)) {
            destroy(in);
            return MPI_ERR_NO_MEM;
        }
    MPI_Info h = table_add(in);
    if (h == MPI_INFO_NULL) {
        destroy(in);
        return MPI_ERR_NO_MEM;
    }
    *out = h;
    return MPI_SUCCESS;
}

int cm_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_dup", info_or_error, info);
    CM_ARG_NOT_NULL(MPI_COMM_SELF, newinfo, call);
    if ((rc = dup_object(in, newinfo)))
        return cm_error(MPI_COMM_SELF, rc, call, "out of memory");
    return MPI_SUCCESS;
}

int cm_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    if (!info)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "info pointer is NULL");
    if (*info == MPI_INFO_ENV)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "MPI_INFO_ENV is predefined and cannot be freed");
    if (!lookup(*info))
        return bad_info(call, *info);
    cm_info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int cm_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_get_nkeys", info_or_error, info);
    CM_ARG_NOT_NULL(MPI_COMM_SELF, nkeys, call);
    *nkeys = in->n;
    return MPI_SUCCESS;
}

int cm_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    CM_CALL_LOOKUP(struct cm_info, in, "MPI_Info_get_nthkey", info_or_error, info);
    if (n < 0 || n >= in->n)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "n = %d is out of range (info %ld has %d keys)", n, (long)(intptr_t)info, in->n);
    CM_ARG_NOT_NULL(MPI_COMM_SELF, key, call);
    strcpy(key, in->e[n].key);
    return MPI_SUCCESS;
}

int cm_info_valid(MPI_Info info)
{
    return info == MPI_INFO_NULL || lookup(info) != NULL;
}

int cm_info_copy(MPI_Info info, MPI_Info *copy)
{
    struct cm_info *in = NULL;
    if (info != MPI_INFO_NULL && !(in = lookup(info)))
        return MPI_ERR_INFO;
    return dup_object(in, copy);
}

int cm_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char call[] = "MPI_Info_create_env";
    if (!info)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "info pointer is NULL");
    if (argc < 0 || (argc > 0 && !argv))
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, argc < 0 ? "argc is %d" : "argv is NULL but argc is %d", argc);
    struct cm_info *in = build_env_from(argv ? argc : -1, argv);
    MPI_Info h = in ? table_add(in) : MPI_INFO_NULL;
    if (h == MPI_INFO_NULL) {
        destroy(in);
        return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *info = h;
    return MPI_SUCCESS;
}
