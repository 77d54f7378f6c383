/* report.c -- names for messages: MPI calls, signals, bindings. */
#include "launch/launch.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cm_call_ids.h"

static const char *const call_names[] = {
    "none",
#define CM_CALL_NAME_(n) "MPI_" #n,
    CM_CALL_LIST(CM_CALL_NAME_)
#undef CM_CALL_NAME_
};

const char *cm_launch_call_name(unsigned id, char *buf, size_t len)
{
    if (id < sizeof call_names / sizeof call_names[0])
        return call_names[id];
    snprintf(buf, len, "MPI call #%u", id);
    return buf;
}

void cm_launch_report_bindings(const struct cm_job *job)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    int me = (int)getpid();
    for (int r = 0; r < job->nranks; r++) {
        int core = job->core_of_rank[r];
        if (core < 0 || !job->have_machine) {
            fprintf(stderr, "[%s:%d] MCW rank %d (pid %d) is not bound (or bound to all available processors)\n",
                    host, me, r, (int)job->pids[r]);
            continue;
        }
        char name[128], map[512];
        cm_machine_core_name(&job->machine, core, name, sizeof name);
        cm_machine_core_map(&job->machine, core, map, sizeof map);
        if (job->bind_set && job->bind_set[r]) { /* --bind-to an object: all of its cores */
            char pus[64];
            hwloc_bitmap_list_snprintf(pus, sizeof pus, job->bind_set[r]);
            snprintf(name, sizeof name, "%s[hwt %s]", job->bind_name[r] ? job->bind_name[r] : "cores", pus);
            cm_launch_set_map(&job->machine, job->bind_set[r], map, sizeof map);
        }
        fprintf(stderr, "[%s:%d] MCW rank %d (pid %d) %s %s: %s\n", host, me, r, (int)job->pids[r],
                job->bind ? "bound to" : "placed on (not bound)", name, map);
    }
    if (job->auto_note)
        fputs(job->auto_note, stderr);
}
