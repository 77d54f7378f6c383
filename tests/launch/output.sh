#!/bin/sh
# Rank output through mpirun: lines are never split by another rank's, tags
# (--tag-output, -l/--prepend-rank), --output-filename files, a partial last
# line, and the output of a rank that crashes.
. "$(dirname "$0")/lib.sh"

# 8 ranks x 2000 lines of 10 KiB into one file: every line whole.
run many -n 8 "$HELPERS/rank_lines" 2000 10240; expect_rc 0 "many lines"
awk -v want=10240 '
    { i = index($0, ":"); r = substr($0, 1, i - 1); body = substr($0, i + 1)
      n = gsub(sprintf("%c", 97 + r % 26), "", body)
      if (length($0) != want || r !~ /^[0-7]$/ || body != "" || n != want - i)
          { print "line " NR " cut or mixed: " substr($0, 1, 40) "... (" length($0) " bytes)"; if (++bad > 3) exit 1 } }
    END { if (NR != 16000) { print NR " lines, expected 16000"; exit 1 } if (bad) exit 1 }' "$T/many.out" >"$T/awk.txt" \
    || { head -c 2000 "$T/awk.txt" >&2; rm -f "$T/many.out"; fail "output lines were split"; }
rm -f "$T/many.out"
for r in 0 1 2 3 4 5 6 7; do grep -q "tail $r" "$T/many.err" || fail "partial last line of rank $r lost"; done

# Both in one file (2>&1): stdout and stderr lines stay whole too.
"$MPIRUN" -n 4 "$HELPERS/rank_lines" 300 5000 >"$T/mixed.txt" 2>&1 || fail "2>&1 run"
bad=$(grep -v '^tail' "$T/mixed.txt" | awk 'length($0) != 5000' | grep -vc '^[0-9]*:[a-z]*tail [0-9]$')
[ "$bad" -eq 0 ] || fail "2>&1: $bad lines cut"

# --tag-output: Open MPI's prefixes, stdout and stderr apart.
run tag -n 2 --tag-output sh -c 'echo "out $COREMPI_RANK"; echo "err $COREMPI_RANK" >&2; printf "part"'
expect_rc 0 "--tag-output"
for r in 0 1; do
    expect_out tag "^\[1,$r\]<stdout>:out $r$"
    expect_out tag "^\[1,$r\]<stdout>:part$"
    expect_err tag "^\[1,$r\]<stderr>:err $r$"
done
grep -qv '^\[1,[01]\]<stdout>:' "$T/tag.out" && fail "tag: an untagged stdout line"
# -l / --prepend-rank: MPICH's.
for opt in -l --prepend-rank; do
    run l -n 3 "$opt" sh -c 'echo "hi $COREMPI_RANK"'; expect_rc 0 "$opt"
    for r in 0 1 2; do expect_out l "^\[$r\] hi $r$"; done
done

# --output-filename DIR: DIR/1/rank.N/stdout and stderr, and still a copy on
# mpirun's; DIR:nocopy writes only the files.
run of -n 2 --output-filename "$T/o" sh -c 'echo "o$COREMPI_RANK"; echo "e$COREMPI_RANK" >&2'
expect_rc 0 "--output-filename"
for r in 0 1; do
    [ "$(cat "$T/o/1/rank.$r/stdout")" = "o$r" ] || fail "rank $r stdout file"
    [ "$(cat "$T/o/1/rank.$r/stderr")" = "e$r" ] || fail "rank $r stderr file"
    expect_out of "^o$r$"
done
run nc -n 1 --output-filename "$T/n:nocopy" echo quiet; expect_rc 0 ":nocopy"
[ "$(cat "$T/n/1/rank.0/stdout")" = quiet ] || fail "nocopy: file"
[ -s "$T/nc.out" ] && fail "nocopy: copied to stdout"
touch "$T/file"
run ofbad -n 1 --output-filename "$T/file/x" true; expect_rc 2 "--output-filename under a file"
expect_err ofbad "mpirun: --output-filename: cannot create"

# A stderr line that starts with the hold mark (\001: a fatal error that
# only points at another rank's, src/core/error.c cm_error_held) waits until
# the other ranks' lines are out, and loses its mark (on main 0f466a0 it came
# first, mark and all).
run held -n 2 sh -c 'if [ $COREMPI_RANK = 0 ]; then printf "\001corempi: X on rank 0: see rank 1\n" >&2;
    else sleep 0.3; echo "corempi: X on rank 1: names the arguments" >&2; fi'
expect_rc 0 "held line"
[ "$(sed -n 1p "$T/held.err")" = "corempi: X on rank 1: names the arguments" ] || fail "held: the naming line is not first"
[ "$(sed -n 2p "$T/held.err")" = "corempi: X on rank 0: see rank 1" ] || fail "held: the held line is not second, unmarked"

# A crash or an abort still delivers what came before it, ahead of mpirun's line.
run crash -n 2 --tag-output sh -c 'echo "before $COREMPI_RANK"; [ $COREMPI_RANK = 1 ] && kill -SEGV $$; sleep 1'
expect_rc 139 "crash"
expect_out crash '^\[1,1\]<stdout>:before 1$'
expect_err crash "rank 1 .* killed by signal 11"

# A rank writing much more than a pipe holds while mpirun is slow to read
# neither blocks the job nor loses output.
run big -n 2 sh -c 'head -c 3000000 /dev/zero | tr "\0" x; echo'
expect_rc 0 "3 MB per rank"
[ "$(wc -c <"$T/big.out" | tr -d ' ')" -eq 6000002 ] || fail "big: lost bytes"
# mpirun on a terminal (script(1) gives it one): with --tag-output the ranks'
# stdout is a terminal too, so stdio line-buffers it as without mpirun.
if command -v script >/dev/null 2>&1; then
    script -qec "'$MPIRUN' -n 2 --tag-output sh -c 'test -t 1 && echo tty || echo notty; echo e >&2'" /dev/null \
        >"$T/pty.out" 2>&1 || fail "under script(1): status $?"
    [ "$(tr -d '\r' <"$T/pty.out" | grep -c '^\[1,[01]\]<stdout>:tty$')" -eq 2 ] || fail "ranks' stdout is not a terminal"
    [ "$(tr -d '\r' <"$T/pty.out" | grep -c '^\[1,[01]\]<stderr>:e$')" -eq 2 ] || fail "stderr under a terminal"
else
    echo "note: no script(1): the terminal case is not tested"
fi
shm_unchanged
echo PASS
