#!/bin/sh
# StableHLO's testdata programs that use stablehlo.convolution (op set v2)
# with only op set v1 besides: every conv_general_dilated_* file of
# $STABLEHLO_TESTDATA/v2 (default $SHARED/stablehlo-testdata/v2) runs on the
# reference and on the runtime with every check passing, and prints in
# plumb's canonical form that formats to itself. A copy with one expected
# value changed must fail its check on both backends, so that a pass is not
# a check that was never run. A missing folder is skipped with a line
# saying how to enable it.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
TDIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}/v2
. "$(dirname "$0")/lib.sh"
lib_init conv
skipped=0

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

if [ -n "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$STABLEHLO_TESTDATA" ]; then
    echo "STABLEHLO_TESTDATA=$STABLEHLO_TESTDATA is not a folder" > "$tmp/err"
    fail "the testdata folder exists"
elif [ -d "$TDIR" ]; then
    n=0
    for f in "$TDIR"/conv_general_dilated_*.mlir; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        name=$(basename "$f")
        for b in ref runtime; do
            if "$PLUMB" run --backend "$b" "$f" > "$tmp/out" 2> "$tmp/err" && ! grep -q "checks\{0,1\} failed" "$tmp/err"; then
                ok "$name passes on $b"
            else
                fail "$name passes on $b"
            fi
        done
        if "$PLUMB" fmt "$f" > "$tmp/a.mlir" 2> "$tmp/err" && "$PLUMB" fmt "$tmp/a.mlir" > "$tmp/b.mlir" 2> "$tmp/err" &&
            cmp -s "$tmp/a.mlir" "$tmp/b.mlir" && grep -q "stablehlo.convolution(" "$tmp/a.mlir"; then
            ok "$name prints in the pretty form and formats to itself"
        else
            fail "$name prints in the pretty form and formats to itself"
        fi
    done
    if [ "$n" = 0 ]; then
        echo "no conv_general_dilated_*.mlir in $TDIR" > "$tmp/err"
        fail "the testdata folder holds convolution programs"
    fi
    # the expected value -1.4219682 of the 1-D file made -9.4219682
    f="$TDIR/conv_general_dilated_float32_1_16_2_float32_3_2_2.mlir"
    if [ -f "$f" ] && grep -q -- "-1.4219682" "$f"; then
        sed 's/-1\.4219682/-9.4219682/' "$f" > "$tmp/changed.mlir"
        for b in ref runtime; do
            "$PLUMB" run --backend "$b" "$tmp/changed.mlir" > "$tmp/out" 2> "$tmp/err"
            if grep -q "1 checks\{0,1\} failed" "$tmp/err"; then
                ok "a changed expected value fails its check on $b"
            else
                fail "a changed expected value fails its check on $b"
            fi
        done
    fi
else
    echo "skipped: $TDIR not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=$((skipped + 1))
fi

finish
