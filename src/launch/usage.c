/* usage.c -- mpirun --help and --version: the option list users see. */
#include "launch/launch.h"

#include <stdio.h>
#include <mpi.h>

#ifndef CM_PROJECT_VERSION
#error "the build passes corempi's version (CMakeLists.txt project VERSION)"
#endif

void cm_launch_version(FILE *out)
{
    /* One line, like `mpirun --version | head -1` in scripts expects. */
    fprintf(out, "mpirun (corempi) %s, implementing MPI %d.%d\n", CM_PROJECT_VERSION, MPI_VERSION,
            MPI_SUBVERSION);
}

void cm_launch_usage(FILE *out)
{
    fprintf(out,
        "usage: mpirun [options] [-n N] program [args...] [: [-n N] program2 [args...] ...]\n"
        "\n"
        "  -n, -np N             number of ranks (default: the slots of -H/--hostfile,\n"
        "                        else the usable cores)\n"
        "  prog1 : -n 2 prog2    MPMD: one MPI_COMM_WORLD, the ranks of each context in\n"
        "                        order; MPI_APPNUM is the context's index (0, 1, ...)\n"
        "  -configfile FILE      one context per line ('-n 2 ./b args'; '#' comments)\n"
        "  --map-by POLICY       rank-to-core placement: %s,\n"
        "                        or ppr:N:core|l3cache|numa|package|socket (N ranks per object),\n"
        "                        or auto:FILE (least predicted cost for FILE's matrix: a coreprof\n"
        "                        trace directory or src,dst,bytes lines; docs/placement.md)\n"
        "  --calibrate           measure this machine's cost model (a few seconds) and cache it\n"
        "  --bind-to WHAT        core|l3cache|numa|package|socket|none (default: bind to a core\n"
        "                        when every rank gets one of its own; 'core' also binds\n"
        "                        round-robin when ranks outnumber cores; an object binds\n"
        "                        each rank to all of that object's cores)\n"
        "  --report-bindings     print each rank's core to stderr\n"
        "  -x VAR[=value]        export VAR (with value, or mpirun's own) to this context\n"
        "  -env VAR value        set VAR=value for this context's ranks\n"
        "  -genv VAR value       set VAR=value for every rank\n"
        "  -wdir, --wdir, --wd DIR   this context's ranks start in DIR (-gwdir: all)\n"
        "  --tag-output          prefix each line of rank r with [1,r]<stdout>: or <stderr>:\n"
        "  -l, --prepend-rank    prefix each line of rank r with [r]\n"
        "  --output-filename DIR  also write rank r's output to DIR/1/rank.r/stdout and\n"
        "                        stderr (DIR:nocopy: only there)\n"
        "  -H, --host H[:S],...  hosts: only this machine (localhost, 127.0.0.1, its\n"
        "                        hostname), S slots each (default 1)\n"
        "  --hostfile, -f, --machinefile FILE   the same from a file ('host slots=N')\n"
        "  --universe-size N     MPI_UNIVERSE_SIZE: slots for the job and what it spawns\n"
        "                        (default: the machine's cores, at least -n)\n"
        "  --timeout S           end the job after S seconds, exit status 124 (also\n"
        "                        MPIEXEC_TIMEOUT=S)\n"
        "  --profile[=DIR]       record a coreprof trace of every rank (into DIR)\n"
        "  --topology SPEC       place on an hwloc synthetic topology or XML file\n"
        "                        (also COREMPI_TOPOLOGY); binding is then skipped\n"
        "  --oversubscribe, --allow-run-as-root   accepted and ignored\n"
        "  -V, --version         corempi's version and the MPI version it implements\n"
        "  -h, --help            this text\n"
        "  --help-env            the COREMPI_* environment variables: default, values, use\n"
        "\n"
        "Output: each rank's lines reach mpirun's stdout/stderr whole (never split by\n"
        "another rank's) when either is not a terminal or any option above asks for tags\n"
        "or files; then each rank's stdout is a pipe (stdio buffers it fully), or a\n"
        "pseudo-terminal when mpirun's stdout is a terminal (line-buffered).\n"
        "\n"
        "Environment: COREMPI_DEADLOCK_TIMEOUT=S ends a job whose ranks are all\n"
        "blocked in MPI with no progress for S seconds (exit status 124); the\n"
        "others are listed by --help-env.\n",
        cm_map_policy_names());
}
