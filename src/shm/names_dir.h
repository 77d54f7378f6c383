/*
 * names_dir.h -- the per-user directory of published service names that
 * two mpirun jobs share (MPI_Publish_name/MPI_Lookup_name across jobs,
 * docs/spawn.md "Two jobs").  Header-only: the library (mpi/dyn_names.c)
 * and mpirun (which removes its job's names when the job ends) both use it.
 *
 * The directory is $XDG_RUNTIME_DIR/corempi-names, or /tmp/corempi-names-<uid>
 * without it; it must be this user's and writable by nobody else (else it
 * is not used, and names stay within the job).  One file per service, named
 * by a hash of the service name and holding "<job>\n<service>\n<port>\n";
 * the job is the publisher's mpirun pid.  A file whose job no longer runs
 * is stale: mpirun removes its job's files at its end, and a lookup that
 * finds one of a job killed before that removes it.
 */
#ifndef CM_SHM_NAMES_DIR_H
#define CM_SHM_NAMES_DIR_H

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory into buf; 0, or -1 when there is none fit to use. */
static inline int cm_names_dir(char *buf, size_t len, int create)
{
    const char *x = getenv("XDG_RUNTIME_DIR");
    if (x && *x && x[0] == '/')
        snprintf(buf, len, "%s/corempi-names", x);
    else
        snprintf(buf, len, "/tmp/corempi-names-%ld", (long)getuid());
    if (create && mkdir(buf, 0700) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (lstat(buf, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022))
        return -1;
    return 0;
}

/* The file of one service. */
static inline void cm_names_path(char *buf, size_t len, const char *dir, const char *service)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)service; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    snprintf(buf, len, "%s/svc-%016llx", dir, (unsigned long long)h);
}

/* Read one file: 0 with its fields, or -1. */
static inline int cm_names_read(const char *path, long *job, char *service, size_t slen, char *port, size_t plen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[32];
    int ok = fgets(line, sizeof line, f) && sscanf(line, "%ld", job) == 1 && fgets(service, (int)slen, f) &&
             fgets(port, (int)plen, f);
    fclose(f);
    if (!ok)
        return -1;
    service[strcspn(service, "\n")] = 0;
    port[strcspn(port, "\n")] = 0;
    return 0;
}

/* mpirun at its end: remove the names its job published and left. */
static inline void cm_names_remove_job(long job)
{
    char dir[512], path[1024], service[512], port[512];
    if (cm_names_dir(dir, sizeof dir, 0) != 0)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    long owner;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "svc-", 4) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (cm_names_read(path, &owner, service, sizeof service, port, sizeof port) == 0 && owner == job)
            unlink(path);
    }
    closedir(d);
}

#endif
