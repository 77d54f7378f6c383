#!/bin/sh
# check_layers_self.sh SRCDIR -- scripts/check_layers.sh must name the
# upward includes of a small made-up tree, whatever the form of the include
# and however the tree's root is given.
#
# The tree: core may include core and shm; p2p is above it.  Each file of
# src/core/ includes p2p/check.h one way:
#   up_prefix.c  "p2p/check.h"        (the per-layer include path stops it too)
#   up_rel.c     "../p2p/check.h"     (compiles: only this test refuses it)
#   up_sub.c     "../../../src/p2p/check.h" from src/core/sub/
#   up_via.c     "sub/../../p2p/check.h" (the old scan took "sub" for the folder)
#   ok.c         "../shm/ring.h" and "core/x.h" (allowed)
# and the root is given absolute, as ".", and relative from its parent (the
# old script reported nothing then: it looked the folders up from inside).
set -u
script=${1:?usage: check_layers_self.sh SRCDIR}/scripts/check_layers.sh
T=$(mktemp -d /tmp/cm-layers-self.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tree/src/shm" "$T/tree/src/core/sub" "$T/tree/src/p2p"
printf 'shm shm\ncore core shm\np2p p2p core shm\n' >"$T/tree/src/layers.txt"
: >"$T/tree/src/p2p/check.h"; : >"$T/tree/src/shm/ring.h"; : >"$T/tree/src/core/x.h"
echo '#include "p2p/check.h"' >"$T/tree/src/core/up_prefix.c"
printf '/* a */\n  #  include "../p2p/check.h"\n' >"$T/tree/src/core/up_rel.c"
echo '#include "../../../src/p2p/check.h"' >"$T/tree/src/core/sub/up_sub.c"
echo '#include "sub/../../p2p/check.h"' >"$T/tree/src/core/up_via.c"
printf '#include "../shm/ring.h"\n#include "core/x.h"\n#include <sys/mman.h>\n' >"$T/tree/src/core/ok.c"

fail=0
check() { # how-the-root-is-given, then the command's folder and root
    out=$(cd "$2" && sh "$script" "$3" 2>&1) && { echo "FAIL ($1): exit 0 with offences present"; fail=1; }
    for want in 'src/core/up_prefix.c:1: core includes p2p/' 'src/core/up_rel.c:2: core includes p2p/' \
                'src/core/sub/up_sub.c:1: core includes p2p/' 'src/core/up_via.c:1: core includes p2p/'; do
        printf '%s\n' "$out" | grep -qF "$want" || { echo "FAIL ($1): no line '$want'"; fail=1; }
    done
    printf '%s\n' "$out" | grep -q 'ok\.c' && { echo "FAIL ($1): an allowed include reported"; fail=1; }
    [ "$fail" = 0 ] || printf '%s\n' "$out"
}
check absolute / "$T/tree"
check dot "$T/tree" .
check relative "$T" tree
[ "$fail" = 0 ] && echo "PASS: every upward include named, root given three ways"
exit "$fail"
