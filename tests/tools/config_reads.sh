#!/bin/sh
# config_reads.sh SRCDIR -- no COREMPI_* variable is read outside the
# configuration modules.
#
# The library reads its settings once, through core/config.h (the table of
# core/config.def): a getenv("COREMPI_...") elsewhere in src/ would be a
# second reader, with its own parse and its own cache.  Also refused:
# getenv of one of the CM_ENV_ names (shm/segment.h, shm/dyn.h) and
# secure_getenv.  The exceptions, each a program or library of its own
# that may not include core (src/layers.txt):
#   src/core/config.c    the library's reader itself
#   src/launch/config.c  mpirun's own rows (MPIRUN, COREMPI_TOPOLOGY), read
#                        once at its start; mpirun only writes the variables
#                        it sets for its ranks (COREMPI_RANK, ...)
#   src/prof/prof_env.c  libcoreprof, a PMPI tool that runs over any MPI and
#                        sees only mpi.h: COREMPI_JOBID names its trace
#                        folder, as SLURM_JOB_ID does under Slurm
# A getenv of a name the user chose (mpirun -x NAME) is not a setting and
# not looked at.
set -u
src=${1:?usage: config_reads.sh SRCDIR}
exceptions='src/core/config.c src/launch/config.c src/prof/prof_env.c'
hits=$(cd "$src" && grep -rnE '(secure_)?getenv *\( *("COREMPI_|CM_ENV_)' src --include='*.[ch]' --include='*.def')
fail=0
printf '%s\n' "$hits" | while IFS= read -r line; do
    [ -n "$line" ] || continue
    file=${line%%:*}
    case " $exceptions " in
    *" $file "*) continue ;;
    esac
    echo "FAIL: $line: reads a COREMPI_ variable outside core/config.c (use cm_config_*(COREMPI_..., def))"
done | tee /dev/stderr | grep -q FAIL && fail=1
# A stale entry (a file moved or gone) would let a new file of that name in.
for f in $exceptions; do
    [ -f "$src/$f" ] || { echo "FAIL: the exception $f is not a file of the tree"; fail=1; }
done
[ "$fail" = 0 ] && echo "PASS: COREMPI_ variables are read only by $exceptions"
exit "$fail"
