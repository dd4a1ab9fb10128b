#!/bin/sh
# StableHLO's own programs that use triangular_solve, cholesky or the
# batch-norm ops (op set v2, docs/spec/linalg.md) with only op set v1
# besides: every such testdata file of $STABLEHLO_TESTDATA/v2 (default
# $SHARED/stablehlo-testdata/v2) and interpreter sample of
# $STABLEHLO_INTERPRET (run with --split-input-file) runs on the reference
# and on the runtime with every check passing. The files are found by
# content, so new ones are picked up; the listed ones must be present.
# Missing folders are skipped with a line saying how to enable them.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
TDIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}/v2
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
. "$(dirname "$0")/lib.sh"
lib_init linalg
skipped=0

# Files that must be among those found.
REQUIRED="triangular_solve_bfloat16_4_4_bfloat16_4_1.mlir"
PATTERN='stablehlo\.triangular_solve\|stablehlo\.cholesky\|stablehlo\.batch_norm_'

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

# run_set DIR LABEL [--split-input-file]: every file of DIR using the ops, on both backends
run_set() {
    dir=$1
    label=$2
    shift 2
    grep -l "$PATTERN" "$dir"/*.mlir 2> /dev/null | sort > "$tmp/list"
    while read -r f; do
        for b in ref runtime; do
            if "$PLUMB" run --backend "$b" "$@" "$f" > "$tmp/out" 2> "$tmp/err"; then
                ok "$label $(basename "$f") on $b"
            else
                fail "$label $(basename "$f") on $b"
            fi
        done
    done < "$tmp/list"
}

if [ -n "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$STABLEHLO_TESTDATA" ]; then
    echo "STABLEHLO_TESTDATA=$STABLEHLO_TESTDATA is not a folder" > "$tmp/err"
    fail "the testdata folder exists"
elif [ -d "$TDIR" ]; then
    for name in $REQUIRED; do
        if [ -f "$TDIR/$name" ]; then ok "$name is present"; else : > "$tmp/err"; fail "$name is present in $TDIR"; fi
    done
    run_set "$TDIR" testdata
else
    skipped=$((skipped + 1))
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
fi

if [ -d "$IDIR" ]; then
    run_set "$IDIR" interpret --split-input-file
else
    skipped=$((skipped + 1))
    echo "skipped: StableHLO interpreter samples not found; set STABLEHLO_INTERPRET=DIR"
fi

finish
