#!/bin/sh
# check_layers.sh [ROOT] -- fail on any #include of a higher layer's header.
#
# The allowed includes of each folder of ROOT/src are read from
# ROOT/src/layers.txt (the one place the layer order is written).  Every
# #include "..." or <...> whose path has a '/' is resolved to the file the
# compiler can reach with it, and the layer is the folder of src/ that file
# sits in:
#   - relative to the including file's folder, as the compiler tries a
#     quoted include first: '#include "../p2p/check.h"' from src/core/ is
#     src/p2p/check.h, layer p2p.  The per-layer include path cannot stop
#     this one (the build compiles it), so this test is what refuses it.
#   - through the layer's include path (build/layers/<layer>/ holds one link
#     per allowed folder): '#include "p2p/p2p.h"' is layer p2p.
# A bare '#include "x.h"' finds its own folder's file first and system
# headers are not ours.  A folder of src/ that layers.txt does not name is
# an error too: a new layer is declared before it is used.  Prints file:line
# for each offence; exit 1 if there was one.
root=${1:-$(dirname "$0")/..}
# Absolute, because the scan below runs from inside the tree: a relative
# ROOT such as "tidy" was looked up again from there and every folder test
# failed, so nothing was ever reported.
root=$(cd "$root" 2>/dev/null && pwd) || { echo "check_layers: no folder ${1:-}" >&2; exit 2; }
table="$root/src/layers.txt"
[ -r "$table" ] || { echo "check_layers: cannot read $table" >&2; exit 2; }

# Folders of src/ that hold sources; every one of them must be declared.
layers=$(sed -e 's/#.*//' "$table" | awk 'NF { print $1 }')
# Every file of src/, for the resolution below (one find, not one per include).
files=$(mktemp /tmp/cm-layers.XXXXXX) || exit 2
trap 'rm -f "$files"' EXIT
(cd "$root" && find src -type f) >"$files"
status=0
for d in "$root"/src/*/; do
    name=$(basename "$d")
    case " $(echo $layers) " in
    *" $name "*) ;;
    *) echo "src/$name/: layer not declared in src/layers.txt"; status=1 ;;
    esac
done

for layer in $layers; do
    allowed=$(sed -e 's/#.*//' "$table" | awk -v l="$layer" '$1 == l { $1 = ""; print }')
    [ -d "$root/src/$layer" ] || continue
    # "file:line<TAB>path<TAB>quote" for every include whose path has a '/';
    # awk resolves it (file's folder first for a quoted one, then the folder
    # of src/ the path starts with) and prints "file:line folder".
    out=$(cd "$root" && find "src/$layer" -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) | sort |
        xargs grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]*/' /dev/null |
        sed -n 's/^\([^:]*:[0-9]*\):[^"<]*\(["<]\)\([^">]*\)[">].*/\1	\3	\2/p' |
        awk -F '\t' -v files="$files" '
        BEGIN { while ((getline f < files) > 0) have[f] = 1 }
        # a/b/../c -> a/c; "" when it climbs out of the tree.
        function norm(p,    n, part, out, i, k, stack) {
            n = split(p, part, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (part[i] == "" || part[i] == ".") continue
                if (part[i] == "..") { if (k == 0) return ""; k--; continue }
                stack[++k] = part[i]
            }
            out = ""
            for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") stack[i]
            return out
        }
        {
            file = $1; sub(/:[0-9]*$/, "", file)
            dir = file; sub(/\/[^\/]*$/, "", dir)
            target = ""
            if ($3 == "\"") {
                rel = norm(dir "/" $2)
                if (rel in have) target = rel
            }
            if (target == "" && $2 !~ /^\.\.?\//) target = norm("src/" $2)
            # Only files under src/<folder>/ belong to a layer.
            if (split(target, p, "/") >= 3 && p[1] == "src") print $1, p[2]
        }' |
        while read -r where dir; do
            [ -d "$root/src/$dir" ] || continue
            case " $allowed " in
            *" $dir "*) ;;
            *) echo "$where: $layer includes $dir/, which is not below it (src/layers.txt)" ;;
            esac
        done)
    if [ -n "$out" ]; then
        echo "$out"
        status=1
    fi
done
[ $status = 0 ] && echo "check_layers: every include goes down (src/layers.txt)"
exit $status
