# leftovers.sh -- sourced by the crash tests: cm_leftovers PROG prints what a
# finished job left behind (a process running PROG, which it kills, or a
# corempi file in /dev/shm) and returns 1, or returns 0 when nothing is left.
cm_leftovers() {
    sleep 0.2
    for p in /proc/[0-9]*; do
        if [ "$(readlink "$p/exe" 2>/dev/null)" = "$1" ]; then
            kill -9 "${p#/proc/}" 2>/dev/null
            echo "process ${p#/proc/} of $1 is left"
            return 1
        fi
    done
    if ls /dev/shm 2>/dev/null | grep -qi corempi; then
        echo "corempi files left in /dev/shm: $(ls /dev/shm | grep -i corempi)"
        return 1
    fi
    return 0
}
