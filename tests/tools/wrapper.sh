#!/bin/sh
# wrapper.sh BUILD SRC -- the compiler wrappers never run themselves, and
# speak both peers' option spellings.
#   - CC=mpicc (make CC=mpicc, ./configure CC=mpicc) is ignored: it works;
#   - COREMPI_CC naming mpicc (path, PATH lookup, symlink), COREMPI_CXX=mpic++,
#     or a script that runs mpicc again: one line naming the variable, fast;
#   - -showme[:compile|:link|:libs|:incdirs|:libdirs|:version], -show,
#     -compile_info, -link_info, --version passed to the compiler.
# Every wrapper call runs under `timeout`: a loop fails the test, not hangs it.
T=10
. "$(dirname "$0")/wrapper_lib.sh"

# 1. CC / CXX naming the wrapper are ignored.
out=$(CC=$b/mpicc t "$b/mpicc" --version 2>&1); rc=$?
[ $rc -eq 0 ] || say "CC=mpicc mpicc --version: rc $rc ($out)"
comp=$(t "$b/mpicc" -showme:version | sed 's/.*compiler: //; s/)$//')
want=$(t $comp --version 2>&1 | head -1)
[ "$(echo "$out" | head -1)" = "$want" ] || say "mpicc --version is not the compiler's: $out"
out=$(CXX=$b/mpicxx t "$b/mpicxx" --version 2>&1) || say "CXX=mpicxx mpicxx --version failed: $out"

# make CC=mpicc and an autotools-shaped ./configure CC=mpicc && make.
mkdir "$tmp/proj"
cp "$src/examples/hello.c" "$tmp/proj/hello.c"
printf 'hello: hello.c\n\t$(CC) $(CFLAGS) -o hello hello.c\n' >"$tmp/proj/Makefile.in"
cat >"$tmp/proj/configure" <<'CONF'
#!/bin/sh
# the shape of an autoconf script: CC from the command line or the environment
for a in "$@"; do case "$a" in CC=*) CC=${a#CC=} ;; esac; done
: "${CC:=cc}"
echo "int main(void){return 0;}" >conftest.c
$CC -o conftest conftest.c || { echo "configure: C compiler cannot create executables" >&2; exit 77; }
{ echo "CC = $CC"; cat Makefile.in; } >Makefile
CONF
(cd "$tmp/proj" && t sh ./configure CC="$b/mpicc" >/dev/null 2>&1 && t make -s >/dev/null 2>&1) ||
    say "./configure CC=mpicc && make failed"
[ -x "$tmp/proj/hello" ] && { t "$b/mpirun" -n 2 "$tmp/proj/hello" | grep -c 'of 2' | grep -qx 2 ||
    say "the program built by ./configure CC=mpicc does not run"; }
rm -f "$tmp/proj/hello"
(cd "$tmp/proj" && PATH=$b:$PATH t make -s -f Makefile.in CC=mpicc >/dev/null 2>&1) || say "make CC=mpicc failed"
[ -x "$tmp/proj/hello" ] || say "make CC=mpicc built nothing"

# 2. A compiler that is the wrapper itself: one line naming the variable.
refused() { # VAR WRAPPER VALUE...: the wrapper refuses with one line naming VAR
    var=$1 w=$2; shift 2
    out=$(env "$@" timeout 10 "$w" -c x.c 2>&1); rc=$?
    [ $rc -eq 124 ] && { say "$* $w: hangs"; return; }
    [ $rc -ne 0 ] || say "$* $w: accepted (rc 0)"
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || say "$* $w: not one line: $out"
    case "$out" in *"$var"*) ;; *) say "$* $w: message does not name $var: $out" ;; esac
}
ln -s "$b/mpicc" "$tmp/cc-link"
printf '#!/bin/sh\nexec %s "$@"\n' "$b/mpicc" >"$tmp/cc-script"
chmod +x "$tmp/cc-script"
refused COREMPI_CC "$b/mpicc" COREMPI_CC="$b/mpicc"
refused COREMPI_CC "$b/mpicc" PATH="$b:$PATH" COREMPI_CC=mpicc
refused COREMPI_CC "$b/mpicc" COREMPI_CC="$tmp/cc-link"
refused COREMPI_CC "$b/mpicc" COREMPI_CC="$tmp/cc-script"
refused COREMPI_CXX "$b/mpicxx" PATH="$b:$PATH" COREMPI_CXX=mpic++
refused COREMPI_CXX "$b/mpic++" COREMPI_CXX="$b/mpicxx"
# ... while another real compiler is fine
out=$(COREMPI_CC=gcc t "$b/mpicc" -showme:version) || say "COREMPI_CC=gcc refused"
case "$out" in *"compiler: gcc"*) ;; *) say "COREMPI_CC=gcc not used: $out" ;; esac

# 3. The spellings.
. "$src/tests/tools/wrapper_spellings.sh"
spellings "$b/mpicc" a.c corempi
for d in $(t "$b/mpicc" -showme:incdirs); do [ -f "$d/mpi.h" ] || say "-showme:incdirs: no mpi.h in $d"; done
for d in $(t "$b/mpicc" -showme:libdirs); do [ -e "$d/libcorempi.so" ] || say "-showme:libdirs: no libcorempi.so in $d"; done
v=$(t "$b/mpicc" -showme:version)
[ "$(echo "$v" | wc -l)" -eq 1 ] && echo "$v" | grep -q "corempi [0-9]" || say "-showme:version: $v"
for w in mpicxx mpic++; do
    s=$(t "$b/$w" -show -o a a.cc)
    case "$s" in *++*|*g++*) ;; *) say "$w -show does not use a C++ compiler: $s" ;; esac
done

[ $fail -eq 0 ] && echo "wrapper.sh: ok"
exit $fail
