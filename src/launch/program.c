/* program.c -- find the program before forking, so that a typo gives one line,
 * not N failing ranks. */
#include "launch/launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int runnable(const char *path, int *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *err = errno;
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        *err = EISDIR;
        return 0;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        *err = EACCES;
        return 0;
    }
    return 1;
}

static int fail(const char *name, int err)
{
    if (err == ENOENT || err == ENOTDIR)
        fprintf(stderr, "mpirun: %s: program not found\n", name);
    else if (err == EACCES)
        fprintf(stderr, "mpirun: %s: not an executable file\n", name);
    else
        fprintf(stderr, "mpirun: %s: %s\n", name, strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

int cm_launch_resolve(const char *name, char *buf, size_t len)
{
    int err = ENOENT;
    if (!*name)
        return ENOENT;
    if (strchr(name, '/')) {
        if (!runnable(name, &err))
            return err;
        snprintf(buf, len, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int seen_unrunnable = 0;
    for (const char *dir = path;; ) {
        const char *colon = strchr(dir, ':');
        size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
        int e;
        if (dlen == 0)
            snprintf(buf, len, "%s", name); /* empty entry: current directory */
        else
            snprintf(buf, len, "%.*s/%s", (int)dlen, dir, name);
        if (runnable(buf, &e))
            return 0;
        if (e != ENOENT && e != ENOTDIR && !seen_unrunnable) {
            seen_unrunnable = 1;
            err = e;
        }
        if (!colon)
            break;
        dir = colon + 1;
    }
    return err;
}

int cm_launch_find_program(const char *name, char *buf, size_t len)
{
    int err = cm_launch_resolve(name, buf, len);
    return err ? fail(name, err) : 0;
}

/* A relative program path is made absolute here, in mpirun's directory:
 * the rank execs it after changing to its -wdir. */
int cm_launch_check_apps(struct cm_launch_opts *o)
{
    for (int a = 0; a < o->napps; a++) {
        struct cm_launch_app *p = &o->apps[a];
        char buf[PATH_MAX];
        int rc = cm_launch_find_program(p->argv[0], buf, sizeof buf);
        if (rc != 0)
            return rc;
        char cwd[PATH_MAX];
        if (buf[0] != '/' && !getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "mpirun: %s: cannot name the current directory: %s\n", p->argv[0], strerror(errno));
            return 126;
        }
        /* no realpath: a symlink stays the program the user named */
        if (buf[0] == '/')
            p->path = strdup(buf);
        else if (asprintf(&p->path, "%s/%s", cwd, buf) < 0)
            p->path = NULL;
        if (!p->path) {
            fprintf(stderr, "mpirun: out of memory\n");
            return 1;
        }
        char why[1024];
        if (cm_launch_foreign(p->path, why, sizeof why)) {
            fprintf(stderr, "mpirun: %s %s\n", p->argv[0], why);
            return 126;
        }
        if (p->wdir) {
            struct stat st;
            if (stat(p->wdir, &st) != 0 || !S_ISDIR(st.st_mode) || access(p->wdir, X_OK) != 0) {
                fprintf(stderr, "mpirun: -wdir %s: %s\n", p->wdir,
                        stat(p->wdir, &st) != 0 ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory"
                                                                                         : strerror(EACCES));
                return 2;
            }
        }
    }
    return 0;
}
