/* args.c -- mpirun's command line: Open MPI and MPICH spellings alike. */
#include "launch/launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: mpirun -n N [options] program [args...]\n"
        "\n"
        "  -n, -np N             number of ranks (default: the usable cores)\n"
        "  --map-by POLICY       rank-to-core placement: %s\n"
        "  --bind-to core|none   bind each rank to a core (default: bind when every\n"
        "                        rank gets a core of its own; 'core' also binds\n"
        "                        round-robin when ranks outnumber cores)\n"
        "  --report-bindings     print each rank's core to stderr\n"
        "  -x VAR[=value]        export VAR (with value, or mpirun's own) to the ranks\n"
        "  -genv VAR value       set VAR=value in the ranks' environment\n"
        "  --profile[=DIR]       record a coreprof trace of every rank (into DIR)\n"
        "  --topology SPEC       place on an hwloc synthetic topology or XML file\n"
        "                        (also COREMPI_TOPOLOGY); binding is then skipped\n"
        "  --oversubscribe, --allow-run-as-root   accepted and ignored\n"
        "  -h, --help            this text\n"
        "  --help-env            the COREMPI_* environment variables: default, values, use\n"
        "\n"
        "Environment: COREMPI_DEADLOCK_TIMEOUT=S ends a job whose ranks are all\n"
        "blocked in MPI with no progress for S seconds (exit status 124); the\n"
        "others are listed by --help-env.\n",
        cm_map_policy_names());
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpirun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see mpirun --help)\n");
    return 2;
}

/* Options are matched with one or two leading dashes, as both families do. */
static const char *option_name(const char *arg)
{
    if (arg[0] != '-')
        return NULL;
    return arg[1] == '-' ? arg + 2 : arg + 1;
}

/* "--opt value" or "--opt=value"; NULL when the value is missing. */
static const char *option_value(int argc, char **argv, int *i, const char *inline_value)
{
    if (inline_value)
        return inline_value;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v <= 0 || v > 65536)
        return -1;
    *out = (int)v;
    return 0;
}

static int add_env(struct cm_launch_opts *o, const char *name, const char *value);

/* Preload libcoreprof.so from the library folder next to mpirun's own. */
static int cm_launch_profile(struct cm_launch_opts *o, const char *dir)
{
    char self[4096], lib[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "mpirun: --profile: cannot find mpirun's own path\n");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(lib, sizeof lib, "%s/../lib/libcoreprof.so", self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "mpirun: --profile: %s not found (was coreprof built?)\n", lib);
        return -1;
    }
    const char *old = getenv("LD_PRELOAD");
    char preload[8400];
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    add_env(o, "LD_PRELOAD", preload);
    if (dir && *dir)
        add_env(o, "COREPROF_DIR", dir);
    return 0;
}

static int add_env(struct cm_launch_opts *o, const char *name, const char *value)
{
    if (!*name || strchr(name, '='))
        return -1;
    if (!value) {
        value = getenv(name);
        if (!value)
            return 0; /* nothing to export: the ranks inherit mpirun's environment anyway */
    }
    char *assign = malloc(strlen(name) + strlen(value) + 2);
    char **grown = realloc(o->env_assign, (size_t)(o->nenv + 1) * sizeof *grown);
    if (!assign || !grown) {
        fprintf(stderr, "mpirun: out of memory\n");
        exit(1);
    }
    sprintf(assign, "%s=%s", name, value);
    o->env_assign = grown;
    o->env_assign[o->nenv++] = assign;
    return 0;
}

int cm_launch_parse(int argc, char **argv, struct cm_launch_opts *o)
{
    memset(o, 0, sizeof *o);
    o->map = CM_MAP_CORE;
    o->topology = getenv("COREMPI_TOPOLOGY");
    int i;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        const char *name = option_name(arg);
        if (!name || !*name)
            break; /* the program */
        char key[64];
        const char *inline_value = strchr(name, '=');
        size_t klen = inline_value ? (size_t)(inline_value - name) : strlen(name);
        if (klen >= sizeof key)
            return bad_usage("unknown option %s", arg);
        memcpy(key, name, klen);
        key[klen] = '\0';
        if (inline_value)
            inline_value++;

        if (!strcmp(key, "h") || !strcmp(key, "help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(key, "help-env")) {
            cm_launch_help_env(stdout);
            return 0;
        } else if (!strcmp(key, "n") || !strcmp(key, "np") || !strcmp(key, "c")) {
            if (parse_count(option_value(argc, argv, &i, inline_value), &o->nranks) != 0)
                return bad_usage("%s needs a positive number", arg);
        } else if (!strcmp(key, "map-by")) {
            const char *v = option_value(argc, argv, &i, inline_value);
            if (!v)
                return bad_usage("%s needs a policy", arg);
            if (cm_map_policy_parse(v, &o->map) != 0) {
                fprintf(stderr, "mpirun: unknown --map-by policy '%s' (known: %s)\n", v, cm_map_policy_names());
                return 2;
            }
        } else if (!strcmp(key, "bind-to")) {
            const char *v = option_value(argc, argv, &i, inline_value);
            if (!v)
                return bad_usage("%s needs core or none", arg);
            if (!strcmp(v, "core"))
                o->bind = CM_BIND_CORE;
            else if (!strcmp(v, "none"))
                o->bind = CM_BIND_NONE;
            else
                return bad_usage("unknown --bind-to target '%s' (known: core, none)", v);
        } else if (!strcmp(key, "report-bindings")) {
            o->report_bindings = 1;
        } else if (!strcmp(key, "topology")) {
            o->topology = option_value(argc, argv, &i, inline_value);
            if (!o->topology)
                return bad_usage("%s needs a synthetic topology or an XML file", arg);
            /* The ranks see the same machine (Comm_split_type, collectives). */
            add_env(o, "COREMPI_TOPOLOGY", o->topology);
        } else if (!strcmp(key, "profile")) {
            /* --profile[=DIR]: only the inline form takes a value, so that
             * "--profile ./app" still runs ./app. */
            if (cm_launch_profile(o, inline_value) != 0)
                return 2;
        } else if (!strcmp(key, "x")) {
            const char *v = option_value(argc, argv, &i, inline_value);
            if (!v || !*v || *v == '=')
                return bad_usage("%s needs VAR or VAR=value", arg);
            const char *eq = strchr(v, '=');
            char var[256];
            size_t len = eq ? (size_t)(eq - v) : strlen(v);
            if (len >= sizeof var)
                return bad_usage("variable name too long in -x %s", v);
            memcpy(var, v, len);
            var[len] = '\0';
            add_env(o, var, eq ? eq + 1 : NULL);
        } else if (!strcmp(key, "genv") || !strcmp(key, "env")) {
            if (i + 2 >= argc)
                return bad_usage("%s needs VAR and value", arg);
            if (add_env(o, argv[i + 1], argv[i + 2]) != 0)
                return bad_usage("bad variable name '%s'", argv[i + 1]);
            i += 2;
        } else if (!strcmp(key, "oversubscribe") || !strcmp(key, "allow-run-as-root")) {
            /* corempi never refuses these: accepted for habit's sake */
        } else {
            return bad_usage("unknown option %s", arg);
        }
    }
    if (i >= argc) {
        fprintf(stderr, "mpirun: no program given (usage: mpirun -n N program [args...]; see mpirun --help)\n");
        return 2;
    }
    o->argv = argv + i;
    return -1;
}

void cm_launch_opts_free(struct cm_launch_opts *o)
{
    for (int i = 0; i < o->nenv; i++)
        free(o->env_assign[i]);
    free(o->env_assign);
    o->env_assign = NULL;
    o->nenv = 0;
}
