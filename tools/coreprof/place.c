/*
 * place.c -- coreprof matrix DIR and coreprof place TRACE [--topology SPEC]
 * (issue 39, docs/placement.md).
 *
 * `matrix` prints the trace's communication matrix as the CSV that
 * `mpirun --map-by auto:` reads: point-to-point and collective (logical
 * flow) bytes and counts added, one src,dst,bytes,count line per pair.
 * `place` prints the cost model's prediction for every named policy and
 * for auto on this machine or a synthetic one, and auto's mapping.
 */
#include "report.h"
#include "topo/mapper.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cp_pattern_from_matrices(const cp_matrices *m, struct cm_comm_pattern *p)
{
    if (cm_pattern_alloc(p, m->n) != 0)
        return -1;
    for (size_t k = 0; k < (size_t)m->n * m->n; k++) {
        p->bytes[k] = m->p2p_bytes[k] + m->coll_bytes[k];
        p->msgs[k] = m->p2p_count[k] + m->coll_count[k];
    }
    return 0;
}

/* The matrix of a trace directory, or of a CSV file. */
static int load_pattern(const char *path, struct cm_comm_pattern *p)
{
    struct stat st;
    char err[256];
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        FILE *f = fopen(path, "r");
        int rc = f ? cm_pattern_read_csv(f, p, err, sizeof err) : -1;
        if (f) fclose(f);
        else snprintf(err, sizeof err, "cannot open it");
        if (rc != 0) fprintf(stderr, "coreprof: %s: %s\n", path, err);
        return rc;
    }
    cp_trace tr;
    cp_matrices m;
    if (cp_trace_stream(path, &tr, stderr, 0) != 0) {
        cp_trace_free(&tr);
        return -1;
    }
    int rc = cp_matrices_build(&tr, &m) == 0 && cp_pattern_from_matrices(&m, p) == 0 ? 0 : -1;
    if (rc != 0) fprintf(stderr, "coreprof: out of memory for the matrices\n");
    cp_matrices_free(&m);
    cp_trace_free(&tr);
    return rc;
}

int cp_cmd_matrix(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: coreprof matrix DIR   (prints src,dst,bytes,count lines for mpirun --map-by auto:)\n");
        return 2;
    }
    struct cm_comm_pattern p;
    if (load_pattern(argv[2], &p) != 0) return 1;
    printf("# ranks %d\n# src,dst,bytes,count: point-to-point and collective (logical flow), from %s\n", p.n, argv[2]);
    for (int i = 0; i < p.n; i++)
        for (int j = 0; j < p.n; j++) {
            size_t k = (size_t)i * p.n + j;
            if (p.bytes[k] > 0 || p.msgs[k] > 0) printf("%d,%d,%.0f,%.0f\n", i, j, p.bytes[k], p.msgs[k]);
        }
    cm_pattern_free(&p);
    return ferror(stdout) ? 1 : 0;
}

int cp_place_compute(const struct cm_comm_pattern *p, const char *topology, int *core, struct cm_map_info *info,
                     int *calibrated)
{
    struct cm_machine mach;
    struct cm_cost_model cm;
    char err[256];
    if (cm_machine_load_caches(&mach, topology, err, sizeof err) != 0) {
        fprintf(stderr, "coreprof: %s\n", err);
        return -1;
    }
    int rc = cm_cost_model_build(&cm, &mach);
    if (rc == 0) {
        cm_cost_cache_apply(&cm, &mach);
        *calibrated = cm.calibrated;
        rc = cm_map_auto(&cm, p, core, info);
        cm_cost_model_free(&cm);
    }
    cm_machine_free(&mach);
    if (rc != 0) fprintf(stderr, "coreprof: out of memory\n");
    return rc;
}

void cp_place_print(FILE *out, const struct cm_comm_pattern *p, const int *core, const struct cm_map_info *info,
                    const char *trace, const char *topology, int calibrated)
{
    char c[32];
    fprintf(out, "Placement of %d ranks on %s (%s cost model)\n", p->n,
            topology && *topology ? topology : "this machine", calibrated ? "calibrated" : "default");
    fprintf(out, "  %-10s %14s %10s\n", "policy", "predicted", "vs identity");
    for (int k = 0; k < CM_MAP_NAMED; k++) {
        cp_fmt_ns(c, sizeof c, info->named_cost[k]);
        fprintf(out, "  %-10s %14s %9.1f%%\n", cm_map_policy_name(cm_map_named[k]), c,
                info->named_cost[0] > 0 ? 100.0 * (info->named_cost[k] - info->named_cost[0]) / info->named_cost[0] : 0);
    }
    cp_fmt_ns(c, sizeof c, info->cost);
    fprintf(out, "  %-10s %14s %9.1f%%   (%s%s)\n", "auto", c,
            info->named_cost[0] > 0 ? 100.0 * (info->cost - info->named_cost[0]) / info->named_cost[0] : 0,
            info->method, info->complete ? ", optimal in the model" : "");
    fprintf(out, "  mapping (rank:core):");
    for (int r = 0; r < p->n; r++) fprintf(out, " %d:%d", r, core[r]);
    fputc('\n', out);
    double best = info->named_cost[info->best_named];
    if (best > 0 && (best - info->cost) / best > 0.10)
        fprintf(out, "  suggestion: mpirun -n %d --map-by auto:%s%s%s%s ... (%.0f%% less than %s in the model)\n", p->n,
                trace, topology && *topology ? " --topology '" : "", topology && *topology ? topology : "",
                topology && *topology ? "'" : "", 100.0 * (best - info->cost) / best,
                cm_map_policy_name(cm_map_named[info->best_named]));
    else
        fprintf(out, "  no suggestion: auto gains at most 10%% over %s in the model\n",
                cm_map_policy_name(cm_map_named[info->best_named]));
}

int cp_cmd_place(int argc, char **argv)
{
    const char *trace = NULL, *topology = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--topology") && i + 1 < argc) topology = argv[++i];
        else if (!strncmp(argv[i], "--topology=", 11)) topology = argv[i] + 11;
        else if (argv[i][0] != '-' && !trace) trace = argv[i];
        else {
            fprintf(stderr, "usage: coreprof place TRACE [--topology SPEC]\n");
            return 2;
        }
    }
    if (!trace) {
        fprintf(stderr, "usage: coreprof place TRACE [--topology SPEC]\n");
        return 2;
    }
    struct cm_comm_pattern p;
    if (load_pattern(trace, &p) != 0) return 1;
    int *core = malloc((size_t)p.n * sizeof *core), calibrated = 0;
    struct cm_map_info info;
    int rc = !core || cp_place_compute(&p, topology, core, &info, &calibrated) != 0;
    if (!rc) cp_place_print(stdout, &p, core, &info, trace, topology, calibrated);
    free(core);
    cm_pattern_free(&p);
    return rc;
}

/* The report's placement part: placement.txt (what `coreprof place` prints,
 * for this machine or COREMPI_TOPOLOGY's) and matrix_placed.png, the bytes matrix with ranks in
 * the order of the cores auto gives them, so that the pairs it keeps close
 * gather along the diagonal.  The HTML report shows both. */
int cp_write_placement(const cp_matrices *m, const char *trace, const char *outdir)
{
    struct cm_comm_pattern p;
    struct cm_map_info info;
    char path[4096];
    int calibrated = 0, rc = -1;
    if (m->n < 2 || cp_pattern_from_matrices(m, &p) != 0) return m->n < 2 ? 0 : -1;
    int *core = malloc((size_t)p.n * sizeof *core), *order = malloc((size_t)p.n * sizeof *order);
    double *placed = malloc((size_t)p.n * p.n * sizeof *placed);
    /* This machine, or the one mpirun --topology / COREMPI_TOPOLOGY describes. */
    const char *topology = getenv("COREMPI_TOPOLOGY");
    if (!core || !order || !placed || cp_place_compute(&p, topology, core, &info, &calibrated) != 0) goto out;
    snprintf(path, sizeof path, "%s/placement.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) goto out;
    cp_place_print(f, &p, core, &info, trace, topology, calibrated);
    if (fclose(f) != 0) goto out;
    int k = 0; /* ranks by core, then by rank */
    for (int c = 0; k < p.n; c++)
        for (int r = 0; r < p.n; r++)
            if (core[r] == c) order[k++] = r;
    for (int i = 0; i < p.n; i++)
        for (int j = 0; j < p.n; j++) placed[(size_t)i * p.n + j] = p.bytes[(size_t)order[i] * p.n + order[j]];
    snprintf(path, sizeof path, "%s/matrix_placed.png", outdir);
    rc = cp_heatmap_png(path, placed, p.n, "Bytes (point-to-point + collective), ranks in auto's core order",
                        "receiver, by core", "sender, by core", "bytes");
out:
    free(core);
    free(order);
    free(placed);
    cm_pattern_free(&p);
    return rc;
}
