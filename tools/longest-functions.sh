#!/bin/sh
# The longest functions of Portolan's own code (issue 25: none over about 120 lines without a
# reason in a comment), measured by Universal Ctags (Debian package `universal-ctags`) from each
# definition's first line to its closing brace:
#   tools/longest-functions.sh [COUNT] [FOLDER...]
# COUNT defaults to 10, the folders to core views app. Prints lines, file:line and the name,
# longest first; a function marked "(reason)" has a comment above it that gives its length a
# reason (it names its own line count, "about N lines"), which is for a reader to judge.
# Lambdas are counted in the function that holds them, not listed apart.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
count=${1:-10}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- core views app
command -v ctags >/dev/null || { echo "longest-functions: ctags (universal-ctags) not found" >&2; exit 2; }
find "$@" \( -name '*.cpp' -o -name '*.h' \) -print |
    ctags -L - --languages=C++ --c++-kinds=f --fields=+ne --extras=-F -o - |
    awk -F'\t' '$1 !~ /^__anon/ {
        line = ""; end = "";
        for (i = 4; i <= NF; ++i) {
            if ($i ~ /^line:/) line = substr($i, 6);
            if ($i ~ /^end:/) end = substr($i, 5);
        }
        if (line != "" && end != "") print end - line + 1 "\t" $2 "\t" line "\t" $1;
    }' |
    sort -t "$(printf '\t')" -k1,1nr |
    head -n "$count" |
    while IFS="$(printf '\t')" read -r n file line name; do
        from=$((line > 6 ? line - 6 : 1))
        reason=""
        if sed -n "${from},${line}p" "$file" | grep -qiE 'about [0-9]+ lines|[0-9]+ lines'; then
            reason=" (reason)"
        fi
        printf '%5d  %s:%s  %s%s\n' "$n" "$file" "$line" "$name" "$reason"
    done
