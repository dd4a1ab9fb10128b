#!/bin/sh
# StableHLO's testdata programs that use reduce_window or select_and_scatter
# (op set v2, docs/spec/window.md) with only supported ops besides: every
# file of $STABLEHLO_TESTDATA/v2 (default $SHARED/stablehlo-testdata/v2)
# named below runs on the reference and on the runtime with every check
# passing (JAX's cumsum/cumprod/cummax/cummin lower to reduce_window).
# cummin_complex64 is not listed: it needs stablehlo.real (complex types).
# A missing folder is skipped with a line saying how to enable it.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
TDIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}/v2
. "$(dirname "$0")/lib.sh"
lib_init window
skipped=0

PASS="reduce_window_max_float32_1_2.mlir reduce_window_min_float16_4_6.mlir
select_and_scatter_add_bfloat16_2_1_6_bfloat16_2_4_6.mlir
select_and_scatter_add_float64_2_1_6_float64_2_4_6.mlir
select_and_scatter_add_int64_1_3_5_int64_2_4_6.mlir
select_and_scatter_add_int8_1_3_5_int8_2_4_6.mlir
cummax_float16_8_9.mlir cummax_int16_8_9.mlir cummax_int8_8_9.mlir
cumprod_uint16_8_9.mlir cumsum_float64_8_9.mlir"

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

if [ -n "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$STABLEHLO_TESTDATA" ]; then
    echo "STABLEHLO_TESTDATA=$STABLEHLO_TESTDATA is not a folder" > "$tmp/err"
    fail "the testdata folder exists"
elif [ -d "$TDIR" ]; then
    for name in $PASS; do
        for b in ref runtime; do
            if [ ! -f "$TDIR/$name" ]; then
                echo "no such file: $TDIR/$name" > "$tmp/err"
                fail "$name exists"
            elif "$PLUMB" run --backend "$b" "$TDIR/$name" > "$tmp/out" 2> "$tmp/err"; then
                ok "$name passes on $b"
            else
                fail "$name passes on $b"
            fi
        done
    done
    # A wrong expected value fails: the check compares, it does not only run.
    sed 's/dense<4.08713388> : tensor<1x1xf32>/dense<2.16966796> : tensor<1x1xf32>/' \
        "$TDIR/reduce_window_max_float32_1_2.mlir" > "$tmp/wrong.mlir"
    for b in ref runtime; do
        "$PLUMB" run --backend "$b" "$tmp/wrong.mlir" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        if [ "$rc" = 1 ] && grep -q "1 checks\{0,1\} failed" "$tmp/err"; then
            ok "a wrong expected maximum fails its check on $b"
        else
            fail "a wrong expected maximum fails its check on $b (exit $rc)"
        fi
    done
else
    echo "skipped: $TDIR not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=$((skipped + 1))
fi

# The printer writes the generic form StableHLO writes, which reads back
# to the same text.
"$PLUMB" fmt "$TDIR/cumsum_float64_8_9.mlir" > "$tmp/a.mlir" 2> "$tmp/err" &&
    "$PLUMB" fmt "$tmp/a.mlir" > "$tmp/b.mlir" 2>> "$tmp/err"
if [ -d "$TDIR" ] && cmp -s "$tmp/a.mlir" "$tmp/b.mlir" &&
    grep -q '"stablehlo.reduce_window"(%arg0, %[0-9a-z_]*) <{padding = dense<\[\[7, 0\], \[0, 0\]\]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}>' "$tmp/a.mlir"; then
    ok "reduce_window prints in StableHLO's generic form and reads back"
elif [ -d "$TDIR" ]; then
    fail "reduce_window prints in StableHLO's generic form and reads back"
fi

finish
