#!/bin/sh
# Every StableHLO test program must verify, and its canonical form must
# round-trip: fmt(fmt(x)) == fmt(x), and the canonical form verifies too; it
# runs on the reference and on the runtime (examples/*.mlir too).
# The programs are read from $STABLEHLO_TESTDATA when it is set (a missing or
# empty folder is then a failure), else from $SHARED/stablehlo-testdata; when
# that does not exist the StableHLO checks are skipped, with a line saying how
# to enable them, and the examples still run.
# Ends with "N passed, N failed, N skipped".
#
# Each check is a function check_<name> FILE run by for_each_file; to add a
# check, write the function and add one for_each_file line at the bottom.
SHARED=${SHARED:-../shared}
DIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}
. "$(dirname "$0")/lib.sh"
lib_init testdata
skipped=0

# check_verify FILE: the program parses and verifies.
check_verify() {
    if "$PLUMB" verify -q "$1" > /dev/null 2> "$tmp/err"; then
        ok "verify $(basename "$1")"
    else
        fail "verify $(basename "$1")"
    fi
}

# check_roundtrip FILE: formatting the canonical form again gives the same
# bytes, and the canonical form verifies.
check_roundtrip() {
    name=$(basename "$1")
    : > "$tmp/err"
    if ! "$PLUMB" fmt "$1" > "$tmp/once.mlir" 2> "$tmp/err"; then
        fail "fmt $name"
    elif ! "$PLUMB" fmt "$tmp/once.mlir" > "$tmp/twice.mlir" 2> "$tmp/err"; then
        fail "fmt of the canonical form of $name"
    elif ! cmp -s "$tmp/once.mlir" "$tmp/twice.mlir"; then
        diff "$tmp/once.mlir" "$tmp/twice.mlir" | head -n 4 > "$tmp/err"
        fail "round-trip $name: fmt(fmt(x)) differs from fmt(x)"
    elif ! "$PLUMB" verify -q "$tmp/once.mlir" > /dev/null 2> "$tmp/err"; then
        fail "verify the canonical form of $name"
    else
        ok "round-trip $name"
    fi
}

# for_each_file CHECK: runs CHECK on every .mlir file of $DIR (none when
# the StableHLO programs are skipped).
for_each_file() {
    [ -n "$DIR" ] || return 0
    for f in "$DIR"/*.mlir; do
        [ -f "$f" ] || continue
        "$1" "$f"
    done
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
if [ -z "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$DIR" ]; then
    # The default folder is absent (a clone not beside ../shared): skip the
    # StableHLO programs, one skip per check below that needs them.
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=4
    DIR=""
elif [ ! -d "$DIR" ]; then
    fail "the testdata folder '$DIR' exists"
    finish
else
    n=0
    for f in "$DIR"/*.mlir; do
        [ -f "$f" ] && n=$((n + 1))
    done
    if [ "$n" = 0 ]; then
        fail "'$DIR' holds .mlir files"
        finish
    fi
    echo "# $n files in $DIR"
fi

for_each_file check_verify
for_each_file check_roundtrip

# check_run FILE: the program runs on the reference and every check in it
# passes (exit 0).
check_run() {
    if "$PLUMB" run --timeout 300 "$1" > /dev/null 2> "$tmp/err"; then
        ok "run $(basename "$1")"
    else
        tail -n 3 "$tmp/err" > "$tmp/err.tail" && mv "$tmp/err.tail" "$tmp/err"
        fail "run $(basename "$1")"
    fi
}
for_each_file check_run

# check_runtime FILE: the program runs on the compiled runtime (1 and 2
# threads give the same printed results) and every check in it passes; then
# --compare finds every result within its bound (exact ops bit-exact).
check_runtime() {
    name=$(basename "$1")
    : > "$tmp/err"
    if ! "$PLUMB" run --backend runtime --threads 1 "$1" > "$tmp/rt1.out" 2> "$tmp/err"; then
        tail -n 3 "$tmp/err" > "$tmp/err.tail" && mv "$tmp/err.tail" "$tmp/err"
        fail "runtime $name"
    elif ! "$PLUMB" run --backend runtime --threads 2 "$1" > "$tmp/rt2.out" 2> "$tmp/err"; then
        tail -n 3 "$tmp/err" > "$tmp/err.tail" && mv "$tmp/err.tail" "$tmp/err"
        fail "runtime on 2 threads $name"
    elif ! cmp -s "$tmp/rt1.out" "$tmp/rt2.out"; then
        echo "results differ between 1 and 2 threads" > "$tmp/err"
        fail "runtime threads $name"
    elif ! "$PLUMB" run --compare "$1" > "$tmp/cmp.out" 2> "$tmp/err"; then
        grep -E "EXCEEDS|MISMATCH" "$tmp/cmp.out" | head -n 3 > "$tmp/err"
        fail "compare $name"
    else
        ok "runtime $name"
    fi
}
for f in ${DIR:+"$DIR"/*.mlir} examples/*.mlir; do
    [ -f "$f" ] || continue
    check_runtime "$f"
done

finish
