/*
 * config.c -- mpirun's own COREMPI_* settings, read once at its start.
 *
 * The library's settings go through core/config.h; mpirun is a program of
 * its own that the layers keep away from core (src/layers.txt), so it has
 * this one reader for the rows it uses (core/config.def: the MPIRUN rows
 * and COREMPI_TOPOLOGY, which mpirun takes as the default of --topology).
 * The variables mpirun sets for its ranks (COREMPI_RANK, ...) it only
 * writes (spawn.c, dynspawn.c); the ranks read them through core's table.
 */
#include "launch/launch.h"

#include <stdlib.h>

struct cm_launch_config cm_launch_cfg;

static const char *text(const char *name)
{
    const char *s = getenv(name);
    return s && *s ? s : NULL;
}

void cm_launch_config_load(void)
{
    cm_launch_cfg.topology = text("COREMPI_TOPOLOGY");
    cm_launch_cfg.deadlock_timeout = text("COREMPI_DEADLOCK_TIMEOUT");
    cm_launch_cfg.verbose = text("COREMPI_LAUNCH_VERBOSE") != NULL;
}
