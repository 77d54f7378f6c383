/* oom.c -- say who killed a rank that died by a SIGKILL mpirun did not send.
 *
 * The kernel's out-of-memory killer uses SIGKILL and leaves no trace in the
 * exit status, and dmesg is often not readable.  The kernel counts its kills
 * in /proc/vmstat (oom_kill, Linux 4.13+, readable by anyone): mpirun reads
 * the count when the job starts and again when a rank dies by SIGKILL.  The
 * count is the machine's, so a kill elsewhere at the same moment would be
 * taken for this one; the message says "most likely" for that reason. */
#include "launch/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CM_TEST_VMSTAT: a file in /proc/vmstat's format, for launch.signal_death
 * (an out-of-memory kill cannot be provoked safely in a test). */
long long cm_launch_oom_kills(void)
{
    const char *path = getenv("CM_TEST_VMSTAT");
    FILE *f = fopen(path ? path : "/proc/vmstat", "re");
    if (!f)
        return -1;
    char line[128];
    long long n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "oom_kill %lld", &n) == 1)
            break;
    fclose(f);
    return n;
}

void cm_launch_sigkill_note(long long oom_before, char *buf, size_t len)
{
    long long now = oom_before >= 0 ? cm_launch_oom_kills() : -1;
    if (now > oom_before)
        snprintf(buf, len, " by the kernel's out-of-memory killer, most likely (its kill count in /proc/vmstat "
                           "rose by %lld during the job; the rank used more memory than the machine or its "
                           "cgroup allows)", now - oom_before);
    else
        snprintf(buf, len, ", not sent by mpirun (another process sent it%s)",
                 now >= 0 ? "; the kernel's out-of-memory killer did not run" : ", or the out-of-memory killer");
}
