#!/bin/sh
# Installs the Debian packages in debian-packages.txt that are not installed yet.
# Non-interactive, works as root or through sudo, and does nothing when all are there.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# An optional argument names another list (packaging/developer-packages.txt for the
# static-analysis and fuzzing tools).
list="${1:-$here/debian-packages.txt}"

missing=""
while read -r pkg cmd _; do
    [ -n "$pkg" ] || continue
    if [ -n "${cmd:-}" ] && command -v "$cmd" >/dev/null 2>&1; then
        continue
    fi
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
        *" installed") ;;
        *) missing="$missing $pkg" ;;
    esac
done <<EOF_LIST
$(sed -e 's/#.*//' "$list")
EOF_LIST

if [ -z "$missing" ]; then
    echo "install-deps: all Debian packages are present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo -n"
else
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: run as root or install sudo" >&2
    exit 1
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
