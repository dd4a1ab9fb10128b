#!/bin/sh
# Installs what plumb needs to build and test, when it is missing.
#   ci/deps.sh            libraries plumb links and the tools its tests use
#   ci/deps.sh --cross    the aarch64 cross compiler *and its C library
#                         headers* that `make check-portable` (part of
#                         `make check`) compiles every source with;
#                         --no-install-recommends would otherwise drop
#                         libc6-dev-arm64-cross and the first #include fails
#   ci/deps.sh --clang    clang and its sanitizer runtimes (`make asan CC=clang`)
#   ci/deps.sh --afl      Debian's afl++ (afl-clang-fast, afl-fuzz, its libFuzzer
#                         driver): `make fuzz-targets-afl` and `make fuzz-afl-smoke`
#                         (docs/fuzzing-targets.md); never needed by make check
#   ci/deps.sh --bench    Debian's python3-numpy, which `plumb-bench --suite
#                         broad` times next to the runtime (the CI never runs
#                         the bench; without it that column says "numpy: not
#                         available")
#   ci/deps.sh --browser  chromium (headless) and tidy, the HTML validator:
#                         `make check-browser` renders the HTML report in it
# Flags may be combined. Base packages, and why:
#   libc6-dev        the C library headers: Debian's gcc only recommends it
#   libgsl-dev libcmocka-dev libxxhash-dev libmpfr-dev libgmp-dev  linked
#   libopenblas-dev  only the benchmark uses it (dlopen at run time, for the
#                    reference sgemm rate); nothing links it
#   lcov             coverage reports
#   jq               the shell tests check JSON reports with it
#   libxml2-utils    xmllint: the shell tests check XML reports with it
#   pkg-config       the install test builds the backend template with it
# As root: installs with apt-get. Otherwise: prints the command and fails.
set -eu
base="libc6-dev libgsl-dev libcmocka-dev libxxhash-dev libmpfr-dev libgmp-dev lcov libopenblas-dev jq libxml2-utils pkg-config"
pkgs=""
for arg in "$@"; do
    case "$arg" in
        --cross) pkgs="$pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
        --clang) pkgs="$pkgs clang libclang-rt-dev" ;;
        --afl) pkgs="$pkgs afl++" ;;
        --bench) pkgs="$pkgs python3-numpy" ;;
        --browser) pkgs="$pkgs chromium tidy" ;;
        -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "ci/deps.sh: unknown option '$arg' (use --cross, --clang, --bench, --browser, --afl)" >&2; exit 2 ;;
    esac
done
[ -n "$pkgs" ] || pkgs=$base
need=""
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
