/* args.c -- mpirun's command line: Open MPI and MPICH spellings alike.
 *
 * The line is a list of contexts separated by ":" (MPMD).  Options that
 * describe the job (placement, binding, output, hosts, timeout, -genv) may
 * stand in any context and apply to all; -n, -x, -env and -wdir belong to the
 * context they stand in.  Everything after a context's program up to the next
 * lone ":" is that program's arguments. */
#include "launch/launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpirun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see mpirun --help)\n");
    return 2;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "mpirun: out of memory\n");
        exit(1);
    }
    return p;
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

/* A positive number of seconds, fractions allowed; -1 otherwise. */
static double parse_seconds(const char *s)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || errno || end == s || *end || !(v > 0) || v > 1e9)
        return -1;
    return v;
}

int cm_launch_add_env(char ***list, int *n, const char *name, const char *value)
{
    if (!*name || strchr(name, '='))
        return -1;
    if (!value) {
        value = getenv(name);
        if (!value)
            return 0; /* nothing to export: the ranks inherit mpirun's environment anyway */
    }
    char *assign = xrealloc(NULL, strlen(name) + strlen(value) + 2);
    sprintf(assign, "%s=%s", name, value);
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = assign;
    return 0;
}

static void add_global_env(struct cm_launch_opts *o, const char *name, const char *value)
{
    cm_launch_add_env(&o->env_assign, &o->nenv, name, value);
}

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
    add_global_env(o, "LD_PRELOAD", preload);
    if (dir && *dir)
        add_global_env(o, "COREPROF_DIR", dir);
    return 0;
}

static struct cm_launch_app *new_app(struct cm_launch_opts *o)
{
    o->apps = xrealloc(o->apps, (size_t)(o->napps + 1) * sizeof *o->apps);
    struct cm_launch_app *app = &o->apps[o->napps++];
    memset(app, 0, sizeof *app);
    return app;
}

static int parse_obj(const char *s, enum cm_obj_kind *kind)
{
    static const struct { const char *name; enum cm_obj_kind kind; } names[] = {
        {"core", CM_OBJ_CORE}, {"l3cache", CM_OBJ_L3CACHE}, {"numa", CM_OBJ_NUMA}, {"package", CM_OBJ_PACKAGE},
        {"socket", CM_OBJ_PACKAGE}, /* Open MPI's word for a package */
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(s, names[k].name)) {
            *kind = names[k].kind;
            return 0;
        }
    return -1;
}

static int parse_map_by(struct cm_launch_opts *o, const char *v)
{
    if (strncmp(v, "ppr:", 4) == 0) {
        char num[16];
        const char *colon = strchr(v + 4, ':');
        size_t len = colon ? (size_t)(colon - (v + 4)) : 0;
        if (!colon || len == 0 || len >= sizeof num)
            return bad_usage("--map-by %s: expected ppr:N:core|l3cache|numa|package", v);
        memcpy(num, v + 4, len);
        num[len] = '\0';
        if (parse_count(num, &o->ppr) != 0 || parse_obj(colon + 1, &o->ppr_obj) != 0)
            return bad_usage("--map-by %s: expected ppr:N:core|l3cache|numa|package", v);
        return -1;
    }
    if (strncmp(v, "auto:", 5) == 0) {
        if (!v[5])
            return bad_usage("--map-by %s needs a file: auto:FILE, a coreprof trace directory or a CSV of src,dst,bytes lines", v);
        o->map_auto = v + 5;
        return -1;
    }
    if (cm_map_policy_parse(v, &o->map) != 0) {
        fprintf(stderr, "mpirun: unknown --map-by policy '%s' (known: %s, ppr:N:core|l3cache|numa|package, auto:FILE)\n", v,
                cm_map_policy_names());
        return 2;
    }
    return -1;
}

static int parse_bind_to(struct cm_launch_opts *o, const char *v)
{
    if (!strcmp(v, "none"))
        o->bind = CM_BIND_NONE;
    else if (!strcmp(v, "core"))
        o->bind = CM_BIND_CORE;
    else if (parse_obj(v, &o->bind_obj) == 0)
        o->bind = CM_BIND_OBJECT;
    else
        return bad_usage("unknown --bind-to target '%s' (known: core, l3cache, numa, package or socket, none)", v);
    return -1;
}

static int parse_list(struct cm_launch_opts *o, struct cm_launch_app **app, int argc, char **argv, int nested);

/* -configfile FILE: MPICH's one context per line (a line ending in '\'
 * goes on on the next), read as if the lines stood on the command line
 * separated by ':'.  The words stay allocated
 * with the options (o->owned). */
static int parse_configfile(struct cm_launch_opts *o, struct cm_launch_app **app, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "mpirun: -configfile %s: %s\n", file, strerror(errno));
        return 2;
    }
    char **words = NULL;
    int n = 0;
    char line[8192];
    int continued = 0; /* the previous line ended in '\': same context */
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        size_t len = strcspn(line, "\r\n");
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        int first = !continued;
        continued = len > 0 && line[len - 1] == '\\';
        if (continued)
            line[len - 1] = ' ';
        for (char *save = NULL, *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
            words = xrealloc(words, (size_t)(n + 2) * sizeof *words);
            if (first && n > 0)
                words[n++] = strdup(":");
            words[n++] = strdup(w);
            first = 0;
        }
    }
    fclose(f);
    if (n == 0) {
        free(words);
        fprintf(stderr, "mpirun: -configfile %s: no context in the file\n", file);
        return 2;
    }
    o->owned = xrealloc(o->owned, (size_t)(o->nowned + n) * sizeof *o->owned);
    for (int k = 0; k < n; k++)
        o->owned[o->nowned++] = words[k];
    /* parse_list starts at index 1, like main's argv. */
    char **list = xrealloc(NULL, (size_t)(n + 1) * sizeof *list);
    list[0] = (char *)file;
    memcpy(list + 1, words, (size_t)n * sizeof *words);
    free(words);
    o->owned_lists = xrealloc(o->owned_lists, (size_t)(o->nlists + 1) * sizeof *o->owned_lists);
    o->owned_lists[o->nlists++] = list;
    return parse_list(o, app, n + 1, list, 1);
}

/* One option at argv[*i]; -1 to go on, else an exit status. */
static int parse_option(struct cm_launch_opts *o, struct cm_launch_app **appp, int argc, char **argv, int *i,
                        int nested)
{
    struct cm_launch_app *app = *appp;
    const char *arg = argv[*i];
    const char *name = option_name(arg);
    char key[64];
    const char *inline_value = strchr(name, '=');
    size_t klen = inline_value ? (size_t)(inline_value - name) : strlen(name);
    if (klen >= sizeof key)
        return bad_usage("unknown option %s", arg);
    memcpy(key, name, klen);
    key[klen] = '\0';
    if (inline_value)
        inline_value++;
    const char *v;

    if (!strcmp(key, "h") || !strcmp(key, "help")) {
        cm_launch_usage(stdout);
        return 0;
    } else if (!strcmp(key, "calibrate")) {
        return cm_launch_calibrate();
    } else if (!strcmp(key, "help-env")) {
        cm_launch_help_env(stdout);
        return 0;
    } else if (!strcmp(key, "V") || !strcmp(key, "version")) {
        cm_launch_version(stdout);
        return 0;
    } else if (!strcmp(key, "n") || !strcmp(key, "np") || !strcmp(key, "c")) {
        if (parse_count(option_value(argc, argv, i, inline_value), &app->nranks) != 0)
            return bad_usage("%s needs a positive number", arg);
    } else if (!strcmp(key, "universe-size")) {
        if (parse_count(option_value(argc, argv, i, inline_value), &o->universe) != 0)
            return bad_usage("%s needs a positive number", arg);
    } else if (!strcmp(key, "map-by")) {
        if (!(v = option_value(argc, argv, i, inline_value)))
            return bad_usage("%s needs a policy", arg);
        return parse_map_by(o, v);
    } else if (!strcmp(key, "bind-to")) {
        if (!(v = option_value(argc, argv, i, inline_value)))
            return bad_usage("%s needs core, l3cache, numa, package (socket) or none", arg);
        return parse_bind_to(o, v);
    } else if (!strcmp(key, "report-bindings")) {
        o->report_bindings = 1;
    } else if (!strcmp(key, "topology")) {
        o->topology = option_value(argc, argv, i, inline_value);
        if (!o->topology)
            return bad_usage("%s needs a synthetic topology or an XML file", arg);
        /* The ranks see the same machine (Comm_split_type, collectives). */
        add_global_env(o, "COREMPI_TOPOLOGY", o->topology);
    } else if (!strcmp(key, "profile")) {
        /* --profile[=DIR]: only the inline form takes a value, so that
         * "--profile ./app" still runs ./app. */
        if (cm_launch_profile(o, inline_value) != 0)
            return 2;
    } else if (!strcmp(key, "x")) {
        v = option_value(argc, argv, i, inline_value);
        if (!v || !*v || *v == '=')
            return bad_usage("%s needs VAR or VAR=value", arg);
        const char *eq = strchr(v, '=');
        char var[256];
        size_t len = eq ? (size_t)(eq - v) : strlen(v);
        if (len >= sizeof var)
            return bad_usage("variable name too long in -x %s", v);
        memcpy(var, v, len);
        var[len] = '\0';
        cm_launch_add_env(&app->env_assign, &app->nenv, var, eq ? eq + 1 : NULL);
    } else if (!strcmp(key, "genv") || !strcmp(key, "env")) {
        if (*i + 2 >= argc)
            return bad_usage("%s needs VAR and value", arg);
        int bad = key[0] == 'g' ? cm_launch_add_env(&o->env_assign, &o->nenv, argv[*i + 1], argv[*i + 2])
                                : cm_launch_add_env(&app->env_assign, &app->nenv, argv[*i + 1], argv[*i + 2]);
        if (bad)
            return bad_usage("bad variable name '%s'", argv[*i + 1]);
        *i += 2;
    } else if (!strcmp(key, "wdir") || !strcmp(key, "wd") || !strcmp(key, "gwdir")) {
        if (!(v = option_value(argc, argv, i, inline_value)) || !*v)
            return bad_usage("%s needs a directory", arg);
        if (key[0] == 'g')
            o->gwdir = v;
        else
            app->wdir = v;
    } else if (!strcmp(key, "tag-output")) {
        o->tag = CM_TAG_OMPI;
    } else if (!strcmp(key, "l") || !strcmp(key, "prepend-rank")) {
        o->tag = CM_TAG_RANK;
    } else if (!strcmp(key, "output-filename")) {
        if (!(v = option_value(argc, argv, i, inline_value)) || !*v)
            return bad_usage("%s needs a directory", arg);
        o->output_dir = v;
    } else if (!strcmp(key, "H") || !strcmp(key, "host")) {
        if (!(v = option_value(argc, argv, i, inline_value)) || !*v)
            return bad_usage("%s needs a host list", arg);
        return cm_launch_hosts(o, v) ? 2 : -1;
    } else if (!strcmp(key, "hostfile") || !strcmp(key, "f") || !strcmp(key, "machinefile") ||
               !strcmp(key, "default-hostfile")) {
        if (!(v = option_value(argc, argv, i, inline_value)) || !*v)
            return bad_usage("%s needs a file", arg);
        return cm_launch_hostfile(o, v) ? 2 : -1;
    } else if (!strcmp(key, "timeout")) {
        v = option_value(argc, argv, i, inline_value);
        if ((o->timeout_s = parse_seconds(v)) < 0)
            return bad_usage("%s needs a positive number of seconds", arg);
        o->timeout_src = "--timeout";
    } else if (!strcmp(key, "configfile")) {
        if (nested)
            return bad_usage("-configfile inside a -configfile (%s)", arg);
        if (!(v = option_value(argc, argv, i, inline_value)) || !*v)
            return bad_usage("%s needs a file", arg);
        return parse_configfile(o, appp, v);
    } else if (!strcmp(key, "oversubscribe") || !strcmp(key, "allow-run-as-root")) {
        /* corempi never refuses these: accepted for habit's sake */
    } else {
        return bad_usage("unknown option %s", arg);
    }
    return -1;
}

/* Options and contexts from argv[1..argc-1] into o; *app is the context
 * being filled.  -1 to go on, else an exit status. */
static int parse_list(struct cm_launch_opts *o, struct cm_launch_app **app, int argc, char **argv, int nested)
{
    for (int i = 1; i < argc;) {
        const char *arg = argv[i];
        if (!strcmp(arg, ":")) {
            if (!(*app)->argv)
                return bad_usage("'%s' with no program before it", arg);
            *app = new_app(o);
            i++;
            continue;
        }
        const char *name = option_name(arg);
        int prog = -1;
        if (!strcmp(arg, "--"))
            prog = i + 1;
        else if (!name || !*name)
            prog = i;
        if (prog < 0) {
            int rc = parse_option(o, app, argc, argv, &i, nested);
            if (rc >= 0)
                return rc;
            i++;
            continue;
        }
        int end = prog;
        while (end < argc && strcmp(argv[end], ":"))
            end++;
        if (end == prog)
            return -1; /* "--" with nothing after it: reported as no program */
        (*app)->argv = xrealloc(NULL, (size_t)(end - prog + 1) * sizeof(char *));
        memcpy((*app)->argv, argv + prog, (size_t)(end - prog) * sizeof(char *));
        (*app)->argv[end - prog] = NULL;
        i = end;
    }
    return -1;
}

int cm_launch_parse(int argc, char **argv, struct cm_launch_opts *o)
{
    memset(o, 0, sizeof *o);
    o->map = CM_MAP_CORE;
    o->topology = cm_launch_cfg.topology;
    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t && *t && (o->timeout_s = parse_seconds(t)) < 0) {
        fprintf(stderr, "mpirun: MPIEXEC_TIMEOUT='%s' is not a positive number of seconds\n", t);
        return 2;
    }
    if (t && *t)
        o->timeout_src = "MPIEXEC_TIMEOUT";
    struct cm_launch_app *app = new_app(o);
    int rc = parse_list(o, &app, argc, argv, 0);
    if (rc >= 0)
        return rc;
    if (!app->argv) {
        fprintf(stderr, o->napps > 1 ? "mpirun: no program after the last ':' (see mpirun --help)\n"
                                     : "mpirun: no program given (usage: mpirun -n N program [args...]; "
                                       "see mpirun --help)\n");
        return 2;
    }
    o->nranks = 0;
    for (int a = 0; a < o->napps; a++) {
        struct cm_launch_app *p = &o->apps[a];
        if (o->napps > 1 && p->nranks == 0) {
            fprintf(stderr, "mpirun: context %d (%s) has no -n: with several programs each needs its "
                            "own -n (see mpirun --help)\n", a, p->argv[0]);
            return 2;
        }
        if (!p->wdir)
            p->wdir = o->gwdir;
        o->nranks += p->nranks;
    }
    if (o->nranks == 0 && o->slots > 0)
        o->nranks = o->slots; /* like both peers: the hosts' slots size the job */
    return -1;
}

void cm_launch_opts_free(struct cm_launch_opts *o)
{
    for (int i = 0; i < o->nenv; i++)
        free(o->env_assign[i]);
    free(o->env_assign);
    for (int a = 0; a < o->napps; a++) {
        struct cm_launch_app *p = &o->apps[a];
        for (int i = 0; i < p->nenv; i++)
            free(p->env_assign[i]);
        free(p->env_assign);
        free(p->argv);
        free(p->path);
    }
    free(o->apps);
    for (int i = 0; i < o->nowned; i++)
        free(o->owned[i]);
    free(o->owned);
    for (int i = 0; i < o->nlists; i++)
        free(o->owned_lists[i]);
    free(o->owned_lists);
    memset(o, 0, sizeof *o);
}
