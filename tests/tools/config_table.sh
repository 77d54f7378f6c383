#!/bin/sh
# config_table.sh SRCDIR -- src/core/config.def against its readers and the README.
#
# Fails when a "COREMPI_..." string literal in src/ or tools/ (or a
# $COREMPI_... in a tools/ shell script, or a read through core/config.h,
# cm_config_size(COREMPI_...)) names no row of the table, when a
# row is read by nothing, when a name has two rows, and when the README's
# table of environment variables lists other names or other defaults, and
# when a reader's constant default is not the table's.
# A literal not in the table may still be a member of the COREMPI_<COLL>
# family: COREMPI_X where the collectives' enum has CM_COLL_X (or the names
# are built as "COREMPI_" #COLL).
set -u
src=${1:?usage: config_table.sh SRCDIR}
def=$src/src/core/config.def
T=$(mktemp -d /tmp/cm-config-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
say() { echo "FAIL: $*" >&2; fail=1; }

# The rows: name, who, default (one per line, tab-separated).  A row may
# wrap; the first three arguments are on the CM_CONFIG line.
awk '/^CM_CONFIG\(/ {
    line = $0; sub(/^CM_CONFIG\(/, "", line)
    n = split(line, f, ",")
    name = f[1]; who = f[3]; gsub(/ /, "", who)
    d = line; sub(/^[^"]*"/, "", d); sub(/".*/, "", d)
    print name "\t" who "\t" d
}' "$def" >"$T/rows"
[ -s "$T/rows" ] || { echo "FAIL: no rows in $def" >&2; exit 1; }
cut -f1 "$T/rows" | sort | uniq -d >"$T/dups"
[ -s "$T/dups" ] && say "names with two rows in config.def: $(tr '\n' ' ' <"$T/dups")"
cut -f1 "$T/rows" | sort -u >"$T/names"

# Every COREMPI_ name inside a string literal of a C file, comments removed
# first (a comment may name a build option such as COREMPI_SANITIZE).
find "$src/src" "$src/tools" -name '*.[ch]' | sort >"$T/cfiles"
xargs awk -v root="$src/" '
    FNR == 1 { incomment = 0; file = substr(FILENAME, length(root) + 1) }
    {
        line = $0; out = ""
        while (line != "") {
            if (incomment) {
                e = index(line, "*/"); if (!e) { line = ""; break }
                line = substr(line, e + 2); incomment = 0; continue
            }
            s = index(line, "/*"); c = index(line, "//")
            if (c && (!s || c < s)) { out = out substr(line, 1, c - 1); line = ""; break }
            if (!s) { out = out line; line = ""; break }
            out = out substr(line, 1, s - 1); line = substr(line, s + 2); incomment = 1
        }
        n = split(out, part, "\"")
        for (i = 2; i <= n; i += 2) {
            t = part[i]
            while (match(t, /COREMPI_[A-Z0-9_]*/)) {
                print substr(t, RSTART, RLENGTH) "\t" file ":" FNR
                t = substr(t, RSTART + RLENGTH)
            }
        }
    }' <"$T/cfiles" >"$T/read_c"
# Shell scripts of tools/ (mpicc.in): $COREMPI_X and ${COREMPI_X.
grep -rnoE '\$\{?COREMPI_[A-Z0-9_]+' "$src/tools" | grep -v '\.[ch]:' |
    sed -E "s|^$src/||; s|^([^:]*:[0-9]*):\\$\\{?(.*)|\\2\t\\1|" >"$T/read_sh"
# Reads through core/config.h name the row as a C token: cm_config_size(COREMPI_X, ...).
grep -rnoE 'cm_config_[a-z]+\( *COREMPI_[A-Z0-9_]+' "$src/src" --include='*.[ch]' |
    sed -E "s|^$src/||; s|^([^:]*:[0-9]*):cm_config_[a-z]+\( *(.*)|\2\t\1|" >"$T/read_cfg"
cat "$T/read_c" "$T/read_sh" "$T/read_cfg" >"$T/read"
[ -s "$T/read" ] || { echo "FAIL: found no readers at all (scanner broken?)" >&2; exit 1; }

# The collectives, for the family row: COREMPI_X is a member when the
# collectives' enum has CM_COLL_X.  A reader may also build the names from a
# list ("COREMPI_" #COLL in an X-macro): that reads the family too.
grep -rhoE '\bCM_COLL_[A-Z_]+' "$src/src" | sed 's/^CM_COLL_/COREMPI_/' | sort -u >"$T/family"

family_read=0
grep -rqE '"COREMPI_" *# *[A-Za-z_]' "$src/src" --include='*.[ch]' && family_read=1
while IFS="$(printf '\t')" read -r name where; do
    [ "$name" = COREMPI_ ] && continue     # "the COREMPI_* variables": no name
    grep -qx "$name" "$T/names" && continue
    if grep -qx "$name" "$T/family"; then
        family_read=1; continue
    fi
    say "$where reads $name, which has no row in src/core/config.def"
done <"$T/read"

while IFS="$(printf '\t')" read -r name who d; do
    case $name in
    'COREMPI_<COLL>')
        [ "$family_read" = 1 ] || say "config.def row $name: no COREMPI_<COLL> variable is read" ;;
    *)
        cut -f1 "$T/read" | grep -qx "$name" || say "config.def row $name is read by nothing in src/ or tools/" ;;
    esac
done <"$T/rows"

# A reader whose default is a constant (cm_config_size(COREMPI_X, 64 * 1024))
# must give the number the table's default starts with.
grep -rnoE '(cm_env_size|cm_env_flag|env_size|cm_config_size|cm_config_flag|cm_config_int)\("?COREMPI_[A-Z0-9_]+"?, *[0-9][0-9 *]*\)' "$src/src" |
    sed -E "s|^$src/||; s|^([^:]*:[0-9]*):[a-z_]*\(\"?([A-Z0-9_]*)\"?, *([^)]*)\)|\2\t\1\t\3|" >"$T/defaults"
[ -s "$T/defaults" ] || say "found no reader with a constant default (scanner broken?)"
while IFS="$(printf '\t')" read -r name where expr; do
    d=$(awk -F '\t' -v n="$name" '$1 == n { print $3 }' "$T/rows")
    first=${d%% *}
    case $first in
    ''|*[!0-9]*) say "$where: $name defaults to $expr in the code, config.def says '$d'" ;;
    *) [ "$(($expr))" = "$first" ] || say "$where: $name defaults to $(($expr)) in the code, config.def says '$d'" ;;
    esac
done <"$T/defaults"

# The README: rows of the table under "## Environment variables" whose first
# cell names COREMPI_ variables; each name's default cell must be the table's.
awk '/^## Environment variables/ { on = 1; next } /^## / { on = 0 }
     on && /^\| *`COREMPI_/ {
        n = split($0, cell, "|")
        d = cell[3]; gsub(/^ +| +$/, "", d)
        names = cell[2]
        while (match(names, /COREMPI_[A-Z0-9_<>]*/)) {
            print substr(names, RSTART, RLENGTH) "\t" d
            names = substr(names, RSTART + RLENGTH)
        }
     }' "$src/README.md" >"$T/readme"
[ -s "$T/readme" ] || say "README.md: no COREMPI_ rows under '## Environment variables'"
while IFS="$(printf '\t')" read -r name d; do
    row=$(awk -F '\t' -v n="$name" '$1 == n' "$T/rows")
    if [ -z "$row" ]; then
        say "README.md lists $name, which has no row in src/core/config.def"
        continue
    fi
    want=$(printf '%s\n' "$row" | cut -f3)
    [ "$d" = "$want" ] || say "README.md: $name default '$d', config.def says '$want'"
done <"$T/readme"
while IFS="$(printf '\t')" read -r name who d; do
    [ "$who" = INTERNAL ] && continue
    cut -f1 "$T/readme" | grep -qxF "$name" || say "README.md's table has no row for $name ($who)"
done <"$T/rows"

[ "$fail" = 0 ] || exit 1
echo "PASS: $(wc -l <"$T/rows") rows, $(wc -l <"$T/read") reads, $(wc -l <"$T/readme") README rows"
