/* calibrate.c -- mpirun --calibrate: measure the cost model's levels on
 * this machine (docs/placement.md).
 *
 * One pair of cores per level the machine has (costmodel.h) ping-pongs
 * through corempi itself -- the figures are what a message costs an MPI
 * program here, not what the memory system could do -- in one job of one
 * rank per core, run as `mpirun -n CORES --bind-to core corempi_calibrate
 * LEVEL:A:B ...`.  The figures go to the per-machine cache that the model
 * reads (cm_cost_cache_apply). */
#include "launch/launch.h"
#include "topo/costmodel.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Run the job; fills lat/bw of the levels measured.  0 or an exit status. */
static int measure(const struct cm_cost_model *cm, double lat[CM_LVL_COUNT], double bw[CM_LVL_COUNT])
{
    int pair[CM_LVL_COUNT][2];
    char self[PATH_MAX], prog[PATH_MAX + 32], n[16], words[CM_LVL_COUNT][64];
    char *argv[8 + CM_LVL_COUNT];
    int k = 0, e = 0;
    cm_cost_level_pairs(cm, pair);
    cm_launch_sibling("mpirun", self, sizeof self);
    cm_launch_sibling("corempi_calibrate", prog, sizeof prog);
    snprintf(n, sizeof n, "%d", cm->ncores);
    argv[k++] = self;
    argv[k++] = "-n";
    argv[k++] = n;
    argv[k++] = "--bind-to";
    argv[k++] = "core";
    argv[k++] = prog;
    for (int l = 0; l < CM_LVL_COUNT; l++)
        if (pair[l][0] >= 0) {
            snprintf(words[l], sizeof words[l], "%s:%d:%d", cm_cost_level_name((enum cm_cost_level)l), pair[l][0],
                     pair[l][1]);
            argv[k++] = words[l];
        }
    argv[k] = NULL;
    pid_t pid;
    FILE *f = cm_launch_capture(argv, &pid, &e);
    if (!f) {
        fprintf(stderr, "mpirun: --calibrate: cannot run %s: %s\n", self, strerror(e));
        return 1;
    }
    char line[256], name[32];
    double a, b;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%31s %lf %lf", name, &a, &b) == 3)
            for (int l = 0; l < CM_LVL_COUNT; l++)
                if (!strcmp(name, cm_cost_level_name((enum cm_cost_level)l))) {
                    lat[l] = a;
                    bw[l] = b;
                }
    if (cm_launch_capture_end(f, pid) != 0) {
        fprintf(stderr, "mpirun: --calibrate: the measuring job failed (above)\n");
        return 1;
    }
    return 0;
}

int cm_launch_calibrate(void)
{
    struct cm_machine m;
    struct cm_cost_model cm;
    char err[256], path[4096];
    if (cm_machine_load_caches(&m, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "mpirun: --calibrate: cannot read the machine's topology: %s\n", err);
        return 1;
    }
    if (cm_cost_model_build(&cm, &m) != 0) {
        cm_machine_free(&m);
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }
    int rc = 0;
    double lat[CM_LVL_COUNT] = {0}, bw[CM_LVL_COUNT] = {0};
    if (cm.ncores < 2) {
        printf("mpirun --calibrate: one usable core, no pair to measure\n");
        goto out;
    }
    if ((rc = measure(&cm, lat, bw)) != 0)
        goto out;
    if (cm_cost_cache_store(&m, lat, bw, err, sizeof err) != 0) {
        fprintf(stderr, "mpirun: --calibrate: %s\n", err);
        rc = 1;
        goto out;
    }
    cm_cost_cache_path(&m, path, sizeof path);
    printf("mpirun --calibrate: %d usable cores; measured through corempi, written to %s\n", cm.ncores, path);
    printf("  %-8s %6s %12s %12s %14s %14s\n", "level", "pairs", "latency", "(default)", "bandwidth", "(default)");
    for (int l = 0; l < CM_LVL_COUNT; l++) {
        if (!cm.present[l])
            continue;
        if (lat[l] > 0)
            printf("  %-8s %6d %9.0f ns %9.0f ns %9.2f GB/s %9.2f GB/s\n", cm_cost_level_name((enum cm_cost_level)l),
                   cm.present[l], lat[l], cm.lat_ns[l], bw[l], cm.bw_gbs[l]);
        else
            printf("  %-8s %6d   not measured (default kept)\n", cm_cost_level_name((enum cm_cost_level)l), cm.present[l]);
    }
out:
    cm_cost_model_free(&cm);
    cm_machine_free(&m);
    return rc;
}
