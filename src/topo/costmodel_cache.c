/* costmodel_cache.c -- mpirun --calibrate's figures, one file per machine.
 *
 * The key is the topology itself (hwloc's synthetic description of it, with
 * caches, hashed), so a machine whose layout changes -- another VM size, a
 * core taken offline -- is calibrated afresh rather than read with another
 * machine's figures. */
#include "topo/costmodel.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int cache_dir(char *dir, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg)
        n = snprintf(dir, len, "%s/corempi", xdg);
    else if (home && *home)
        n = snprintf(dir, len, "%s/.cache/corempi", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int cm_cost_cache_path(const struct cm_machine *m, char *path, size_t len)
{
    char dir[3072], desc[4096];
    if (cache_dir(dir, sizeof dir) != 0)
        return -1;
    if (hwloc_topology_export_synthetic(m->topo, desc, sizeof desc, 0) < 0) {
        /* An asymmetric machine has no synthetic form: the host and size then. */
        char host[256] = "";
        gethostname(host, sizeof host - 1);
        snprintf(desc, sizeof desc, "%s/%d", host, m->ncores);
    }
    int n = snprintf(path, len, "%s/calibration-%016llx.txt", dir, (unsigned long long)fnv1a(desc));
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int cm_cost_cache_apply(struct cm_cost_model *cm, const struct cm_machine *m)
{
    char path[4096], line[256], name[32];
    if (m->foreign || cm_cost_cache_path(m, path, sizeof path) != 0)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int applied = 0;
    while (fgets(line, sizeof line, f)) {
        double lat, bw;
        if (line[0] == '#' || sscanf(line, "%31s %lf %lf", name, &lat, &bw) != 3 || lat <= 0 || bw <= 0)
            continue;
        for (int l = 0; l < CM_LVL_COUNT; l++)
            if (!strcmp(name, cm_cost_level_name((enum cm_cost_level)l))) {
                cm->lat_ns[l] = lat;
                cm->bw_gbs[l] = bw;
                applied = 1;
            }
    }
    fclose(f);
    cm->calibrated = applied;
    return applied;
}

int cm_cost_cache_store(const struct cm_machine *m, const double lat_ns[CM_LVL_COUNT],
                        const double bw_gbs[CM_LVL_COUNT], char *err, size_t errlen)
{
    char dir[3072], path[4096], tmp[4200];
    if (cache_dir(dir, sizeof dir) != 0 || cm_cost_cache_path(m, path, sizeof path) != 0) {
        snprintf(err, errlen, "no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
        return -1;
    }
    char parent[3072];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        mkdir(parent, 0700); /* ~/.cache may not exist yet */
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# corempi cost model, measured by mpirun --calibrate: level latency_ns bandwidth_GB/s\n");
    for (int l = 0; l < CM_LVL_COUNT; l++)
        if (lat_ns[l] > 0 && bw_gbs[l] > 0)
            fprintf(f, "%s %.1f %.3f\n", cm_cost_level_name((enum cm_cost_level)l), lat_ns[l], bw_gbs[l]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        unlink(tmp);
        return -1;
    }
    return 0;
}
