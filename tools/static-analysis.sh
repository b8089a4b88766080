#!/bin/sh
# Static analysis of Portolan's own code (issue 15), run by developers (not in CI: it takes far
# longer than CI's budget on the 2-core machine):
#   tools/static-analysis.sh [tidy|clazy|all] [FILE...]
# clang-tidy uses .clang-tidy; clazy (Debian package `clazy`) checks the Qt code (views/, app/)
# with the level0 and level1 sets plus the qt6-* porting checks. Both read the compile database
# of build/dev, or of BUILD_DIR when set (configure it and build its autogen targets first:
# generated moc/ui headers are needed). Files default to every .cpp of core/, views/ and app/
# (tests/ are not analysed: see README).
# Runs niced, JOBS files at a time (default 2). Prints every report once, then the count per
# check; exit status 1 when anything is reported, 2 when the tools or the build are missing.
# Files the compiler could not parse completely (clang 14 fails on LibTorch's headers in C++20
# mode) are named at the end: they were analysed only in part.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
[ $# -gt 0 ] && shift
jobs=${JOBS:-2}
db=${BUILD_DIR:-build/dev}
[ -f "$db/compile_commands.json" ] || { echo "configure first: cmake --preset dev" >&2; exit 2; }
if [ $# -gt 0 ]; then files=$*; else files=$(git ls-files 'core/*.cpp' 'views/*.cpp' 'app/*.cpp'); fi
qtfiles=$(echo "$files" | tr ' ' '\n' | grep -E '^(views|app|tests)/' || true)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One file per analysed source, so parallel runs never interleave their lines.
if [ "$what" = tidy ] || [ "$what" = all ]; then
    command -v clang-tidy >/dev/null || { echo "clang-tidy is not installed" >&2; exit 2; }
    echo "$files" | tr ' ' '\n' | grep . | xargs -P "$jobs" -I{} sh -c \
        'o="$3/tidy.$(echo "$2" | tr / _)"; nice -n 10 clang-tidy -p "$1" --quiet "$2" >"$o" 2>/dev/null
         grep -qE "^(/usr/[^ ]*: |[^ ]*: fatal )?error:" "$o" && echo "clang-tidy $2" >>"$3/partial"; true' \
        sh "$db" {} "$out"
fi
if [ "$what" = clazy ] || [ "$what" = all ]; then
    command -v clazy-standalone >/dev/null || { echo "clazy is not installed (apt-get install clazy)" >&2; exit 2; }
    echo "$qtfiles" | grep . | xargs -P "$jobs" -I{} sh -c \
        'o="$3/clazy.$(echo "$2" | tr / _)"; nice -n 10 clazy-standalone -p "$1/compile_commands.json" \
            -checks=level0,level1,qt6-deprecated-api-fixes,qt6-header-fixes \
            --ignore-dirs="(_deps|/usr/|_autogen)" "$2" 2>"$o" >/dev/null
         grep -qE "^(/usr/[^ ]*: |[^ ]*: fatal )?error:" "$o" && echo "clazy $2" >>"$3/partial"; true' \
        sh "$db" {} "$out" || true
fi

# A header's report appears once per source that includes it: count each report once. Reports
# located in Debian's headers are dropped: the analyzer follows Qt's inline code (QTimer::singleShot
# owns its slot object through Qt internals it cannot see) and reports leaks there, not in ours.
cat "$out"/tidy.* "$out"/clazy.* 2>/dev/null | grep -E '^[^ ].*: (warning|error):' | grep -v '^/usr/' |
    sed "s|^$root/||" | sort -u >"$out/all" || true
cat "$out/all" >&2
echo "reports per check:"
sed -n 's/.*\[\([^]]*\)\]$/\1/p' "$out/all" | sort | uniq -c | sort -rn
errors=$(grep -c ': error:' "$out/all" || true)
total=$(wc -l <"$out/all")
echo "reports: $total (errors: $errors)"
if [ -s "$out/partial" ]; then
    echo "analysed only in part (compiler errors in Debian's headers, fatal or driver errors):"
    sort "$out/partial" | sed 's/^/  /'
fi
[ "$total" -eq 0 ]
