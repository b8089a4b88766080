#!/bin/sh
# Static analysis of Portolan's own code (issue 15), run by developers (not in CI: it takes far
# longer than CI's budget on the 2-core machine):
#   tools/static-analysis.sh [tidy|clazy|all] [FILE...]
# clang-tidy uses .clang-tidy; clazy (Debian package `clazy`) checks the Qt code (views/, app/,
# tests/) with the level0 and level1 sets plus qt6-* porting checks. Both read the compile
# database of build/dev (configure it first: cmake --preset dev). Files default to every .cpp of
# core/, views/ and app/. Exit status 1 when anything is reported.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
[ $# -gt 0 ] && shift
db=build/dev
[ -f "$db/compile_commands.json" ] || { echo "configure first: cmake --preset dev" >&2; exit 2; }
files=${*:-$(git ls-files 'core/*.cpp' 'views/*.cpp' 'app/*.cpp')}
qtfiles=$(echo "$files" | tr ' ' '\n' | grep -E '^(views|app|tests)/' || true)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
if [ "$what" = tidy ] || [ "$what" = all ]; then
    command -v clang-tidy >/dev/null || { echo "clang-tidy is not installed" >&2; exit 2; }
    for f in $files; do
        nice -n 10 clang-tidy -p "$db" --quiet "$f" 2>/dev/null >>"$out" || status=1
    done
fi
if [ "$what" = clazy ] || [ "$what" = all ]; then
    command -v clazy-standalone >/dev/null || { echo "clazy is not installed (apt-get install clazy)" >&2; exit 2; }
    for f in $qtfiles; do
        nice -n 10 clazy-standalone -p "$db/compile_commands.json" \
            -checks=level0,level1,qt6-deprecated-api-fixes,qt6-header-fixes \
            --ignore-dirs='(_deps|/usr/)' "$f" 2>>"$out" >/dev/null || status=1
    done
fi
grep -E 'warning:|error:' "$out" | sort -u | tee /dev/stderr | wc -l | sed 's/^/reports: /'
grep -qE 'warning:|error:' "$out" && status=1
exit $status
