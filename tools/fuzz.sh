#!/bin/sh
# The long fuzz runs of issue 15, one target at a time and niced (the machine is shared):
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Builds the `fuzz` preset (clang + libFuzzer + ASan/UBSan) unless FUZZ_NO_BUILD=1, seeds each
# target from tests/fuzz/seeds, the test fixtures and, when PORTOLAN_CORPUS is set, the shared
# corpus (Python and YAML files of the real projects), and prints executions, wall time and
# findings per target. A crash leaves crash-* in build/fuzz/findings/TARGET/: turn it into a
# fixture in tests/fuzz/regressions/TARGET/ (replayed by ctest) once it is fixed.
# Stops each target at SECONDS (default 600) or 1,000,000 executions, whichever comes first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-"params_edits schema guide_yaml report capture python_guides run_event dryrun_events"}
build=build/fuzz
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    cmake --preset fuzz >/dev/null
    nice -n 15 cmake --build --preset fuzz -j "${PORTOLAN_JOBS:-2}"
fi
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 QT_QPA_PLATFORM=offscreen
summary=$build/findings/summary.txt
mkdir -p "$build/findings"
: >"$summary"
for t in $targets; do
    work=$build/findings/$t
    corpus=$work/corpus
    mkdir -p "$corpus"
    extra=""
    case $t in
        params_edits|schema)
            extra="tests/params/fixtures tests/runtime/fixtures"
            if [ -n "${PORTOLAN_CORPUS:-}" ]; then
                find "$PORTOLAN_CORPUS" -name '*.yaml' -size -64k | head -2000 |
                    while read -r f; do cp "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-16).yaml"; done
            fi ;;
        python_guides)
            extra="tests/fixtures/projects"
            if [ -n "${PORTOLAN_CORPUS:-}" ]; then
                find "$PORTOLAN_CORPUS/projects" -name '*.py' -size -64k | head -2000 |
                    while read -r f; do cp "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-16).py"; done
            fi ;;
        guide_yaml) extra="resources/guides resources/targets resources/contracts resources/schemas" ;;
        report) extra="tests/profile/fixtures" ;;
    esac
    log=$work/log.txt
    start=$(date +%s)
    rc=0
    nice -n 15 "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -runs=1000000 -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/" \
        "$corpus" tests/fuzz/seeds/"$t" $extra >"$log" 2>&1 || rc=$?
    wall=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' \
              -o -maxdepth 1 -name 'oom-*' -o -maxdepth 1 -name 'leak-*' | wc -l)
    line="$t: ${execs:-?} executions in ${wall}s, exit $rc, findings $crashes"
    echo "$line" | tee -a "$summary"
done
echo "summary in $summary"
