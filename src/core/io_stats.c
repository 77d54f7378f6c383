/* io_stats.c -- the MPI-IO counters of core/io_stats.h. */
#include "core/io_stats.h"

struct cm_io_stats cm_io_stats;
