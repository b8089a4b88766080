#!/bin/sh
# The installed layout: the .deb that deb_package built is extracted with dpkg -x into a temporary
# root, and its binaries run from there with no PORTOLAN_RESOURCES, from a folder outside the
# source tree, on a copy of a sample project. Resources (guides, schemas, targets, the Python
# stand-ins) must be found install-relative, and portolan-torch next to portolan-cli.
# Usage: installed_layout.sh DEB_DIR SAMPLE_PROJECT_DIR
set -eu
deb=$(ls "$1"/*.deb)
sample=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
dpkg -x "$deb" "$root"
cp -r "$sample" "$tmp/project"
rm -rf "$tmp/project/.portolan"
cd "$tmp"
unset PORTOLAN_RESOURCES PORTOLAN_TORCH
export QT_QPA_PLATFORM=offscreen HOME="$tmp/home"
mkdir -p "$HOME"
cli=$root/usr/bin/portolan-cli
fail() { echo "FAIL: $*" >&2; exit 1; }

# Resources resolve inside the extracted root, not in the builder's source tree.
"$cli" --version >version.txt
cat version.txt
want="resources $root/usr/share/portolan/resources"
grep -qxF "$want" version.txt || fail "expected '$want'"
for d in guides schemas targets contracts python/portolan_dryrun; do
    [ -d "$root/usr/share/portolan/resources/$d" ] || fail "the .deb lacks resources/$d"
done

# info and check read the guides and schemas from there.
"$cli" info project >info.txt || fail "info exited $?"
head -5 info.txt
rc=0
"$cli" check project >check.txt || rc=$?
[ "$rc" -le 1 ] || fail "check exited $rc"
grep -qi "cerebras" check.txt || { cat check.txt; fail "check did not run a Cerebras guide"; }
head -5 check.txt

# compile: from the params (no child), then a TorchScript model through portolan-torch.
"$cli" compile project --target cs-2 >compile.txt || { cat compile.txt; fail "compile exited $?"; }
head -3 compile.txt
/usr/bin/python3 - "$tmp/model.pt" <<'PY'
import sys, torch
m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
torch.jit.trace(m, torch.zeros(1, 8)).save(sys.argv[1])
PY
"$cli" compile model.pt --input-shape 1,8 --target ipu-mk2 >compile_pt.txt 2>&1 ||
    { cat compile_pt.txt; fail "compile of a .pt exited $? (portolan-torch not found next to portolan-cli?)"; }
head -3 compile_pt.txt

# The dry run's Python stand-ins come from the installed resources/python.
rc=0
"$cli" run project --dry-run --trust --steps 1 >dryrun.txt 2>&1 || rc=$?
if grep -q "dryrun.no-driver\|is missing from" dryrun.txt; then
    cat dryrun.txt
    fail "the dry-run driver was not found in the installed layout"
fi
[ "$rc" -eq 0 ] || { cat dryrun.txt; fail "run --dry-run exited $rc"; }
tail -3 dryrun.txt

# The GUI renders a screenshot from the extracted root.
"$root/usr/bin/portolan" --screenshot "$tmp/shot.png" project >gui.txt 2>&1 ||
    { cat gui.txt; fail "portolan --screenshot exited $?"; }
[ -s "$tmp/shot.png" ] || fail "no screenshot written"
echo "OK: installed layout at $root"
