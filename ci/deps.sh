#!/bin/sh
# Installs what plumb needs to build and test, when it is missing.
# libopenblas-dev: only the benchmark uses it (dlopen at run time, for the
# reference sgemm rate); nothing links it.
# `ci/deps.sh --cross` instead installs the aarch64 cross compiler that
# `make check-portable` (part of `make check`) compiles every source with.
# As root: installs with apt-get. Otherwise: prints the command and fails.
set -eu
need=""
pkgs="libgsl-dev libcmocka-dev libxxhash-dev libmpfr-dev libgmp-dev lcov libopenblas-dev"
if [ "${1:-}" = "--cross" ]; then
    pkgs="gcc-aarch64-linux-gnu"
fi
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in $pkgs; do
    have_pkg "$p" || need="$need $p"
done
if [ -z "$need" ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "plumb needs:$need" >&2
    echo "install them with:  sudo apt-get install -y$need" >&2
    exit 1
fi
echo "ci/deps.sh: installing$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need
