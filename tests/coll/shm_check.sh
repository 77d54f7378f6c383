#!/bin/sh
# shm_check.sh MODE -- cmd...   run an MPI test and check its stderr for the
# shared-memory collectives' "no free area" note (COREMPI_VERBOSE=coll):
#   MODE never:      the note must not appear (areas are recycled)
#   MODE exhausted:  it must appear before the line "all communicators freed"
#                    and not after it (fallback used, then areas came back)
# The command must also exit 0.
mode=$1; shift; [ "$1" = "--" ] && shift
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then
  echo "shm_check: command failed ($rc)"; tail -20 "$err"; exit 1
fi
note="no free shared-memory collective area"
case $mode in
  never)
    if grep -q "$note" "$err"; then echo "shm_check: unexpected: $note"; exit 1; fi ;;
  exhausted)
    before=$(sed -n '/all communicators freed/q;p' "$err" | grep -c "$note")
    after=$(sed -n '/all communicators freed/,$p' "$err" | grep -c "$note")
    grep -q "all communicators freed" "$err" || { echo "shm_check: marker missing"; exit 1; }
    [ "$before" -gt 0 ] || { echo "shm_check: the areas never ran out"; exit 1; }
    [ "$after" -eq 0 ] || { echo "shm_check: areas not given back ($after notes after freeing)"; exit 1; } ;;
  *) echo "shm_check: bad mode $mode"; exit 1 ;;
esac
echo "shm_check $mode: ok"
