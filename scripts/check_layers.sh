#!/bin/sh
# check_layers.sh [ROOT] -- fail on any #include of a higher layer's header.
#
# The allowed includes of each folder of ROOT/src are read from
# ROOT/src/layers.txt (the one place the layer order is written).  An
# include is checked when its path starts with a folder of src/, as in
# '#include "p2p/p2p.h"'; a bare '#include "x.h"' finds its own folder's
# file first and system headers are not ours.  A folder of src/ that
# layers.txt does not name is an error too: a new layer is declared before
# it is used.  Prints file:line for each offence; exit 1 if there was one.
root=${1:-$(dirname "$0")/..}
table="$root/src/layers.txt"
[ -r "$table" ] || { echo "check_layers: cannot read $table" >&2; exit 2; }

# Folders of src/ that hold sources; every one of them must be declared.
layers=$(sed -e 's/#.*//' "$table" | awk 'NF { print $1 }')
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
    # file:line:folder for every quoted include that names a folder.
    out=$(cd "$root" && find "src/$layer" -type f \( -name '*.c' -o -name '*.h' \) | sort |
        xargs grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]*/' /dev/null |
        sed -n 's/^\([^:]*:[0-9]*\):[^"]*"\([^"/]*\)\/.*/\1 \2/p' |
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
