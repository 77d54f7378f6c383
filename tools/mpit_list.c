/*
 * mpit_list.c -- print corempi's MPI_T variables with their values.
 *
 *   mpit_list [--init] [--help]
 *
 * Per category: each control variable (name = value, its scope and
 * whether it can be written, the description) and each performance
 * variable (name, class, value now).  Without --init only MPI_T is
 * initialized, so it runs anywhere without mpirun and shows what a program
 * would see before MPI_Init: the settings of this environment.  With
 * --init it calls MPI_Init (alone or under mpirun: every rank prints, rank
 * by rank) and also shows the variables bound to a communicator, for
 * MPI_COMM_WORLD.  A program of the standard API only: it shows what any
 * MPI_T tool sees.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", rc);
    fprintf(stderr, "mpit_list: %s: %s\n", call, text);
    exit(1);
}
#define TRY(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) fail(#call, rc_); } while (0)

static const char *scope_name(int s)
{
    if (s == MPI_T_SCOPE_CONSTANT) return "constant";
    if (s == MPI_T_SCOPE_READONLY) return "read-only";
    if (s == MPI_T_SCOPE_LOCAL) return "writable, local";
    if (s == MPI_T_SCOPE_GROUP || s == MPI_T_SCOPE_GROUP_EQ) return "writable, per group";
    if (s == MPI_T_SCOPE_ALL) return "writable, all ranks";
    if (s == MPI_T_SCOPE_ALL_EQ) return "writable, same value on all ranks";
    return "?";
}

static const char *class_name(int c)
{
    static const struct { int c; const char *n; } t[] = {
        {MPI_T_PVAR_CLASS_STATE, "state"}, {MPI_T_PVAR_CLASS_LEVEL, "level"},
        {MPI_T_PVAR_CLASS_SIZE, "size"}, {MPI_T_PVAR_CLASS_PERCENTAGE, "percentage"},
        {MPI_T_PVAR_CLASS_HIGHWATERMARK, "high-water mark"}, {MPI_T_PVAR_CLASS_LOWWATERMARK, "low-water mark"},
        {MPI_T_PVAR_CLASS_COUNTER, "counter"}, {MPI_T_PVAR_CLASS_AGGREGATE, "aggregate"},
        {MPI_T_PVAR_CLASS_TIMER, "timer"}, {MPI_T_PVAR_CLASS_GENERIC, "generic"}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (t[i].c == c)
            return t[i].n;
    return "?";
}

static void print_cvar(int i)
{
    char name[256], desc[1024];
    int nl = sizeof name, dl = sizeof desc, verb, bind, scope, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    TRY(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope));
    MPI_T_cvar_handle h;
    TRY(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    char *buf = calloc((size_t)count + 1, 16);
    TRY(MPI_T_cvar_read(h, buf));
    TRY(MPI_T_cvar_handle_free(&h));
    if (dt == MPI_INT)
        printf("  %s = %d", name, *(int *)buf);
    else
        printf("  %s = %s", name, buf);
    printf("  (%s)\n      %s\n", scope_name(scope), desc);
    free(buf);
}

/* The state variable's value as its enumeration item's name. */
static void print_state(MPI_T_enum en, int v)
{
    int num;
    TRY(MPI_T_enum_get_info(en, &num, NULL, NULL));
    for (int k = 0; k < num; k++) {
        char item[128];
        int len = sizeof item, value;
        TRY(MPI_T_enum_get_item(en, k, &value, item, &len));
        if (value == v) {
            printf("%s", item);
            return;
        }
    }
    printf("%d", v);
}

static void print_pvar(MPI_T_pvar_session s, int i, int initialized)
{
    char name[256], desc[1024];
    int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    TRY(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont, &atomic));
    printf("  %s (%s%s)", name, class_name(cls), bind == MPI_T_BIND_MPI_COMM ? ", per rank of a communicator" : "");
    MPI_Comm world = MPI_COMM_WORLD;
    if (bind != MPI_T_BIND_NO_OBJECT && (bind != MPI_T_BIND_MPI_COMM || !initialized)) {
        printf(" = (needs MPI_Init: --init)\n      %s\n", desc);
        return;
    }
    MPI_T_pvar_handle h;
    TRY(MPI_T_pvar_handle_alloc(s, i, &world, &h, &count));
    unsigned long long *v = calloc((size_t)count, sizeof *v);
    int *iv = calloc((size_t)count, sizeof *iv);
    TRY(MPI_T_pvar_read(s, h, dt == MPI_INT ? (void *)iv : (void *)v));
    printf(" =");
    for (int k = 0; k < count; k++) {
        printf(" ");
        if (dt == MPI_INT && en != MPI_T_ENUM_NULL)
            print_state(en, iv[k]);
        else if (dt == MPI_INT)
            printf("%d", iv[k]);
        else
            printf("%llu", v[k]);
    }
    printf("\n      %s\n", desc);
    TRY(MPI_T_pvar_handle_free(s, &h));
    free(v), free(iv);
}

static void list(int initialized)
{
    int ncat;
    MPI_T_pvar_session s;
    TRY(MPI_T_pvar_session_create(&s));
    TRY(MPI_T_category_get_num(&ncat));
    for (int c = 0; c < ncat; c++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, nc, np, nsub;
        TRY(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &nsub));
        printf("%s: %s\n", name, desc);
        int *idx = malloc(sizeof(int) * (size_t)(nc + np + 1));
        TRY(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++)
            print_cvar(idx[k]);
        TRY(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++)
            print_pvar(s, idx[k], initialized);
        free(idx);
        printf("\n");
    }
    TRY(MPI_T_pvar_session_free(&s));
}

int main(int argc, char **argv)
{
    int init = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--init")) {
            init = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: mpit_list [--init]\n"
                   "Prints corempi's MPI_T control variables (the COREMPI_* settings) and performance\n"
                   "variables with their values.  --init: call MPI_Init first (also under mpirun) and\n"
                   "show the per-communicator variables for MPI_COMM_WORLD.\n");
            return 0;
        } else {
            fprintf(stderr, "mpit_list: unknown option %s (try --help)\n", argv[i]);
            return 2;
        }
    }
    int provided, rank = 0, size = 1;
    TRY(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    if (init) {
        TRY(MPI_Init(&argc, &argv));
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            if (init)
                printf("== rank %d of %d ==\n", rank, size);
            list(init);
            fflush(stdout);
        }
        if (init)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    if (init)
        MPI_Finalize();
    TRY(MPI_T_finalize());
    return 0;
}
