# wrapper_spellings.sh -- sourced by tests/tools/wrapper.sh and
# tests/fortran/wrapper.sh (which define t and say): both peers' option
# spellings of one compiler wrapper.
# spellings WRAPPER SOURCE LIBS: WRAPPER (a path) compiling SOURCE (a file
# name) links LIBS ("corempi", "mpifort corempi"), in that order.
spellings() {
    w=$1 srcf=$2 libs=$3 lflags=""
    for l in $libs; do lflags="$lflags -l$l"; done
    n=$(basename "$w")
    [ "$(t "$w" -showme:libs)" = "$libs" ] || say "$n -showme:libs is not '$libs'"
    for o in -showme -show; do
        s=$(t "$w" $o -o a "$srcf")
        echo "$s" | grep -q -- "-I.* -o a $srcf .*-Wl,-rpath,.*$lflags" || say "$n $o: $s"
    done
    for o in -showme:compile -compile_info; do
        s=$(t "$w" $o -c "$srcf")
        echo "$s" | grep -q -- "-I" && ! echo "$s" | grep -q -- "$lflags" || say "$n $o: $s"
    done
    for o in -showme:link -link_info; do
        s=$(t "$w" $o a.o)
        echo "$s" | grep -q -- "$lflags" || say "$n $o: $s"
    done
    t "$w" -showme:bogus >/dev/null 2>&1 && say "$n -showme:bogus accepted"
}
