#!/bin/sh
# install.sh BUILD SRC -- `make install` into a temporary prefix works: the
# installed mpicc (and pkg-config) build a program that the installed mpirun
# runs without LD_LIBRARY_PATH; mpicc -show prints the real command.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
p=$tmp/prefix
for f in bin/mpicc bin/mpirun bin/mpiexec include/mpi.h lib/libcorempi.so lib/libcorempi.a lib/pkgconfig/corempi.pc; do
    [ -e "$p/$f" ] || { echo "install.sh: $f was not installed" >&2; exit 1; }
done
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
ldd "$tmp/hello" | grep -q "$p/lib/libcorempi.so" || { echo "install.sh: hello does not use the installed library" >&2; exit 1; }
echo "install.sh: ok"
