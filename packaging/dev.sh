#!/bin/sh
# The two Quick start commands of README.md:
#   packaging/dev.sh gui   installs what is missing, builds, opens the GUI on a sample project
#   packaging/dev.sh test  installs what is missing, builds, runs the whole test suite (ctest)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
preset=${PORTOLAN_PRESET:-dev}
jobs=${PORTOLAN_JOBS:-$(nproc)}
# PORTOLAN_WERROR=ON (set by .ci/run) makes warnings in Portolan's own code errors.
werror=${PORTOLAN_WERROR:+-DPORTOLAN_WERROR=$PORTOLAN_WERROR}

build() {
    sh packaging/install-deps.sh
    cmake --preset "$preset" $werror
    cmake --build --preset "$preset" -j "$jobs"
}

case "${1:-}" in
    gui)
        build
        shift
        project=${1:-sample_projects/mnist-mlp-cerebras-pytorch}
        exec "build/$preset/app/gui/portolan" "$project"
        ;;
    test)
        build
        ctest --preset "$preset" -j "$jobs"
        ;;
    *)
        echo "usage: packaging/dev.sh gui [PROJECT] | test" >&2
        exit 2
        ;;
esac
