/* capture.c -- run a helper program and read its standard output
 * (coreprof matrix for --map-by auto:DIR, corempi_calibrate for
 * --calibrate), without a shell: the arguments are paths. */
#include "launch/launch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void cm_launch_sibling(const char *name, char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        snprintf(buf, len, "%s/%s", dirname(self), name);
        if (access(buf, X_OK) == 0)
            return;
    }
    snprintf(buf, len, "%s", name);
}

FILE *cm_launch_capture(char *const argv[], pid_t *pid, int *err)
{
    int fds[2];
    if (pipe(fds) != 0) {
        *err = errno;
        return NULL;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    FILE *f = rc == 0 ? fdopen(fds[0], "r") : NULL;
    if (!f) {
        *err = rc ? rc : errno;
        close(fds[0]);
        if (rc == 0)
            waitpid(*pid, NULL, 0);
    }
    return f;
}

int cm_launch_capture_end(FILE *f, pid_t pid)
{
    fclose(f);
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
