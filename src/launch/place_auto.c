/* place_auto.c -- --map-by auto:FILE: the placement the cost model
 * prefers for a recorded communication matrix (issue 39, docs/placement.md).
 *
 * FILE is a CSV of src,dst,bytes[,count] lines, or a coreprof trace
 * directory, whose matrix `coreprof matrix DIR` prints in that same CSV
 * form: mpirun runs the coreprof beside it (or on PATH) rather than linking
 * the trace reader, which is the profiler's and may change with it. */
#include "launch/launch.h"
#include "topo/mapper.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int read_trace_dir(const char *dir, struct cm_comm_pattern *p)
{
    char prog[PATH_MAX + 16], err[256];
    int e = 0;
    pid_t pid;
    cm_launch_sibling("coreprof", prog, sizeof prog);
    char *argv[] = {prog, "matrix", (char *)dir, NULL};
    FILE *f = cm_launch_capture(argv, &pid, &e);
    if (!f) {
        fprintf(stderr, "mpirun: --map-by auto:%s: cannot run %s to read the trace: %s\n", dir, prog, strerror(e));
        return 2;
    }
    int bad = cm_pattern_read_csv(f, p, err, sizeof err) != 0;
    if (cm_launch_capture_end(f, pid) != 0) {
        fprintf(stderr, "mpirun: --map-by auto:%s: '%s matrix' could not read the trace (above)\n", dir, prog);
        if (!bad)
            cm_pattern_free(p);
        return 2;
    }
    if (bad) {
        fprintf(stderr, "mpirun: --map-by auto:%s: coreprof's matrix: %s\n", dir, err);
        return 2;
    }
    return 0;
}

int cm_launch_auto_read(const char *file, struct cm_comm_pattern *p)
{
    struct stat st;
    char err[256];
    if (stat(file, &st) != 0) {
        fprintf(stderr, "mpirun: --map-by auto:%s: %s\n", file, strerror(errno));
        return 2;
    }
    if (S_ISDIR(st.st_mode))
        return read_trace_dir(file, p);
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "mpirun: --map-by auto:%s: %s\n", file, strerror(errno));
        return 2;
    }
    int rc = cm_pattern_read_csv(f, p, err, sizeof err);
    fclose(f);
    if (rc != 0) {
        fprintf(stderr, "mpirun: --map-by auto:%s: %s\n", file, err);
        return 2;
    }
    return 0;
}

/* "1.23 ms" */
static void fmt_ns(double ns, char *buf, size_t len)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.3g us", ns / 1e3);
    else
        snprintf(buf, len, "%.3g ns", ns);
}

static double gain_pct(double cost, double against)
{
    return against > 0 ? 100.0 * (against - cost) / against : 0;
}

int cm_launch_auto_place(struct cm_job *job, const struct cm_comm_pattern *p)
{
    struct cm_cost_model cm;
    struct cm_map_info info;
    if (cm_cost_model_build(&cm, &job->machine) != 0) {
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }
    cm_cost_cache_apply(&cm, &job->machine);
    if (cm_map_auto(&cm, p, job->core_of_rank, &info) != 0) {
        cm_cost_model_free(&cm);
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }
    char c[32], id[32], bn[32];
    fmt_ns(info.cost, c, sizeof c);
    fmt_ns(info.named_cost[0], id, sizeof id);
    fmt_ns(info.named_cost[info.best_named], bn, sizeof bn);
    if (asprintf(&job->auto_note,
                 "mpirun: --map-by auto: predicted communication cost %s, against identity %s (%.1f%% less) and the "
                 "best named policy %s %s (%.1f%% less); %s%s, %s model\n",
                 c, id, gain_pct(info.cost, info.named_cost[0]), cm_map_policy_name(cm_map_named[info.best_named]),
                 bn, gain_pct(info.cost, info.named_cost[info.best_named]), info.method,
                 info.complete ? ", optimal in the model" : "", cm.calibrated ? "calibrated" : "default") < 0)
        job->auto_note = NULL;
    cm_cost_model_free(&cm);
    return 0;
}
