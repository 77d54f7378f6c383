/*
 * trace_dir.c -- find and read the rank files of a trace directory.
 *
 * Rank files are named <world rank>.cpt.  The number of ranks is the largest of
 * (highest file index + 1) and the world size the headers claim, so that ranks
 * that left no file at all are still reported as missing -- but a header claim
 * far beyond the files present (a damaged or hostile header) is not allowed to
 * make us allocate and probe a million ranks: such claims are reported once.
 * (cpt_read_dir in the reader trusts the claim up to 2^20 ranks.)
 */
#define _GNU_SOURCE
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CP_MAX_RANK_INDEX  65536   /* files beyond this index are ignored (one node) */

/* "<digits>.cpt" -> index, else -1 */
static long rank_of_name(const char *name)
{
    size_t l = strlen(name);
    if (l < 5 || l > 12 || strcmp(name + l - 4, ".cpt") != 0) return -1;
    long v = 0;
    for (size_t i = 0; i < l - 4; i++) {
        if (name[i] < '0' || name[i] > '9') return -1;
        v = v * 10 + (name[i] - '0');
    }
    if (l - 4 > 1 && name[0] == '0') return -1;   /* "01.cpt" is not rank 1's file */
    return v;
}

/* Number of rank files to look at (highest index + 1) and their total size; -1 if none. */
int cp_scan_trace_dir(const char *dir, int *nout, uint64_t *bytes, FILE *diag)
{
    *nout = 0;
    if (bytes) *bytes = 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(diag, "coreprof: %s: cannot open directory: %s\n", dir, strerror(errno));
        return -1;
    }
    long maxidx = -1;
    size_t files = 0, ignored = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        long r = rank_of_name(e->d_name);
        if (r < 0) continue;
        if (r >= CP_MAX_RANK_INDEX) { ignored++; continue; }
        files++;
        if (r > maxidx) maxidx = r;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (bytes && stat(path, &st) == 0 && S_ISREG(st.st_mode)) *bytes += (uint64_t)st.st_size;
    }
    closedir(d);
    if (ignored)
        fprintf(diag, "coreprof: %s: ignoring %zu file(s) named for ranks >= %d\n", dir, ignored, CP_MAX_RANK_INDEX);
    if (!files) {
        fprintf(diag, "coreprof: %s: no rank files (<rank>.cpt)\n", dir);
        return -1;
    }
    *nout = (int)maxidx + 1;
    return 0;
}

int cp_read_trace_dir(const char *dir, cpt_trace **out, int *nout, FILE *diag)
{
    *out = NULL;
    *nout = 0;
    int n;
    if (cp_scan_trace_dir(dir, &n, NULL, diag) != 0) return -1;
    size_t files = (size_t)n;
    cpt_trace *t = calloc((size_t)n, sizeof *t);
    if (!t) { fprintf(diag, "coreprof: out of memory\n"); return -1; }
    char path[4096];
    int claimed = 0, ok = 0;
    for (int r = 0; r < n; r++) {
        snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
        if (cpt_read_file(path, &t[r]) != 0) continue;
        ok++;
        if (t[r].header.world_size > claimed) claimed = t[r].header.world_size;
        if (t[r].header.rank != r) {
            /* keep it but say so: a renamed file would mislabel a rank */
            char msg[sizeof t[r].error];
            snprintf(msg, sizeof msg, "%.400s: the header says rank %d%s%.700s", path, t[r].header.rank,
                     t[r].error[0] ? "; " : "", t[r].error);
            memcpy(t[r].error, msg, sizeof msg);
            t[r].complete = 0;
        }
    }
    if (claimed > n) {
        int extra = claimed - n;
        if (extra > CP_MAX_MISSING_TAIL) {
            fprintf(diag, "coreprof: %s: headers claim %d ranks but files stop at rank %d; "
                          "reporting ranks 0..%d only\n", dir, claimed, n - 1, n - 1);
        } else {
            cpt_trace *a = realloc(t, (size_t)claimed * sizeof *a);
            if (a) {
                t = a;
                for (int r = n; r < claimed; r++) {
                    snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
                    cpt_read_file(path, &t[r]);     /* fails: sets "cannot open" */
                }
                n = claimed;
            }
        }
    }
    *out = t;
    *nout = n;
    if (!ok) {
        fprintf(diag, "coreprof: %s: none of the %zu rank file(s) could be read (rank 0: %s)\n", dir, files,
                t[0].error[0] ? t[0].error : "missing");
        return -1;
    }
    return 0;
}
