#!/bin/sh
# install.sh BUILD SRC -- `make install` into a temporary prefix works: the
# installed mpicc (and pkg-config) build a program that the installed mpirun
# runs without LD_LIBRARY_PATH; mpicc -show prints the real command; the
# installed files are the README's list; the installed mpicxx builds C++.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
p=$tmp/prefix
# The installed files are exactly the README's list (between the
# install-list markers); a name ending in * is installed only when the
# build made it (the peer profiler flavours, the Fortran bindings), i.e.
# when build/lib, build/bin or build/include has it.
sed -n '/<!-- install-list -->/,/<!-- \/install-list -->/p' "$src/README.md" |
    grep -v -e '<!--' -e '```' | tr ' ' '\n' | sed '/^$/d' >"$tmp/promised"
[ -s "$tmp/promised" ] || { echo "install.sh: no install-list in README.md" >&2; exit 1; }
: >"$tmp/want"
while read -r f; do
    case "$f" in
    *\*) f=${f%\*}; [ -e "$build/$f" ] && echo "$f" >>"$tmp/want" ;;
    *) echo "$f" >>"$tmp/want" ;;
    esac
done <"$tmp/promised"
(cd "$p" && find . \( -type f -o -type l \) | sed 's|^\./||') | sort >"$tmp/got"
sort -o "$tmp/want" "$tmp/want"
if ! cmp -s "$tmp/want" "$tmp/got"; then
    echo "install.sh: installed files differ from the README's list (< promised, > installed):" >&2
    diff "$tmp/want" "$tmp/got" | grep '^[<>]' >&2
    exit 1
fi
show=$("$p/bin/mpicc" -show -o x x.c)
echo "$show" | grep -q -- "-I$p/include" || { echo "install.sh: mpicc -show lacks -I: $show" >&2; exit 1; }
echo "$show" | grep -q -- "-Wl,-rpath,$p/lib" || { echo "install.sh: mpicc -show lacks the rpath: $show" >&2; exit 1; }
"$p/bin/mpicc" -O2 -o "$tmp/hello" "$src/examples/hello.c"
out=$(env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 3 "$tmp/hello" | sort)
[ "$(echo "$out" | grep -c 'of 3')" -eq 3 ] || { echo "install.sh: unexpected output: $out" >&2; exit 1; }
# pkg-config builds the same program
PKG_CONFIG_PATH=$p/lib/pkgconfig cc -O2 -o "$tmp/hello2" "$src/examples/hello.c" $(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs corempi)
"$p/bin/mpiexec" -n 2 "$tmp/hello2" | grep -q 'of 2'
# the installed library reports where it comes from, and ldd finds it through the rpath
# (its SONAME is the standard ABI's libmpi_abi.so.1; -lcorempi is a link to it)
ldd "$tmp/hello" | grep -q "libmpi_abi.so.1 => $p/lib/libmpi_abi.so.1" || { echo "install.sh: hello does not use the installed library" >&2; exit 1; }
# mpicc_abi builds the same program against -lmpi_abi
"$p/bin/mpicc_abi" -O2 -o "$tmp/hello3" "$src/examples/hello.c"
env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/hello3" | grep -q 'of 2' || { echo "install.sh: mpicc_abi's program fails" >&2; exit 1; }
# the installed mpicc finds mpi_legacy.h for the MPI-1 names (tests/mpi/legacy.c)
"$p/bin/mpicc" -DCOREMPI_LEGACY_NAMES -I"$src/tests/mpi" -o "$tmp/legacy" "$src/tests/mpi/legacy.c"
env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/legacy" || { echo "install.sh: the legacy-names program fails" >&2; exit 1; }
# the installed mpifort builds a Fortran program (use mpi, the module file
# installed) that runs without LD_LIBRARY_PATH, when the build had gfortran
if [ -x "$p/bin/mpifort" ]; then
    (cd "$tmp" && "$p/bin/mpifort" -o "$tmp/fp2p" "$src/tests/fortran/f_check.f90" "$src/tests/fortran/f_p2p.f90")
    env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/fp2p" | grep -q 'errors *0' ||
        { echo "install.sh: the Fortran program built by the installed mpifort fails" >&2; exit 1; }
fi
# the installed mpicxx builds and links C++ that the installed mpirun runs
# (when the build found a C++ compiler: make deps installs g++)
"$p/bin/mpicxx" -showme:version >/dev/null 2>&1 || { echo "install.sh: ok (no C++ compiler: mpicxx not tried)"; exit 0; }
"$p/bin/mpicxx" -O1 -o "$tmp/cxx" "$src/tests/tools/cxx_types.cc"
[ "$(env -u LD_LIBRARY_PATH "$p/bin/mpirun" -n 2 "$tmp/cxx" | grep -c '^cxx_types: ok$')" -eq 2 ] ||
    { echo "install.sh: the C++ program built by the installed mpicxx fails" >&2; exit 1; }
"$p/bin/mpic++" -showme:incdirs | grep -qx "$p/include" || { echo "install.sh: mpic++ -showme:incdirs" >&2; exit 1; }
echo "install.sh: ok"
