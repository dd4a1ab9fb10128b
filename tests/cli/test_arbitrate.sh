#!/bin/sh
# Arbitration of third-party expected values (docs/spec/checks.md
# "Arbitration"): programs shaped like StableHLO's testdata whose expected
# values are the left-to-right f32 accumulation (derived by hand in each
# fixture's header, tests/cli/arbitrate/) pass `plumb run` with a note
# naming the op, the element and both distances from the exact result;
# --no-arbitrate and PLUMB_ARBITRATE=0 make them fail as written; an exact
# op's failing check fails whatever the mode. Run by tests/run.sh with PLUMB
# set to the binary. Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
TESTDATA=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$ROOT/tests/cli/arbitrate
. "$(dirname "$0")/lib.sh"
lib_init arb
skipped=0

# expect_err DESCRIPTION TEXT: the last run's stderr contains TEXT.
expect_no_err() {
    if grep -F -q -- "$2" "$tmp/err"; then fail "$1 ('$2' on stderr)"; else ok "$1"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
unset PLUMB_ARBITRATE

# The dot of 1, 2^-24, 2^-24, -0.9921875: expected 2^-7, exact 2^-7 + 2^-23.
f=$FIX/dot_general_f32_cancel.mlir
run "$PLUMB" run "$f"
expect_rc "dot_general_f32_cancel passes by arbitration" 0
expect_err "the note names the check, the op and its location" \
    "dot_general_f32_cancel.mlir:13:5: note: check.expect_close: arbitration accepted 1 of 1 elements of the value of stablehlo.dot_general at 12:10"
expect_err "the note names the element and which side is wrong" \
    "at [0, 0]: got 0.007812619 (0x3C000080), expected 0.0078125 (0x3C000000): expected value is 128 ulp from the exact result, which this backend returns (correctly rounded)"
expect_err "the note says how to turn the mode off" "PLUMB_ARBITRATE=0 or --no-arbitrate turns this off"
if grep -q '^tensor<1x1xf32> dense<0.007812619>$' "$tmp/out"; then
    ok "the result printed is the correctly rounded one"
else
    fail "the result printed is the correctly rounded one"
fi

run "$PLUMB" run --no-arbitrate "$f"
expect_rc "--no-arbitrate: the check fails as written" 1
expect_err "--no-arbitrate: the report still says which side is wrong" \
    "128 ulp apart; expected value is 128 ulp from the exact result, which this backend returns (correctly rounded)"
expect_err "--no-arbitrate: the report says arbitration is off" "arbitration is off"
expect_no_err "--no-arbitrate: no note" "note:"

PLUMB_ARBITRATE=0 run "$PLUMB" run "$f"
expect_rc "PLUMB_ARBITRATE=0: the check fails as written" 1

# testdata-shaped: f16 x f32, 2x2 results 128 and 32 ulp from exact.
run "$PLUMB" run "$FIX/dot_general_float16_2_4_float32_4_2.mlir"
expect_rc "dot_general_float16_2_4_float32_4_2 passes by arbitration" 0
expect_err "all four elements are accepted" "arbitration accepted 4 of 4 elements"
expect_err "element [0, 1] is 32 ulp off" \
    "at [0, 1]: got 0.01562506 (0x3C800020), expected 0.015625 (0x3C800000): expected value is 32 ulp"
expect_err "element [1, 0] is 128 ulp off" \
    "at [1, 0]: got 0.015625238 (0x3C800080), expected 0.015625 (0x3C800000): expected value is 128 ulp"

# A sum, checked with expect_almost_eq and a tight tolerance.
run "$PLUMB" run "$FIX/reduce_add_f32_cancel.mlir"
expect_rc "reduce_add_f32_cancel passes by arbitration" 0
expect_err "the note names the reduce" \
    "note: check.expect_almost_eq_const: arbitration accepted 1 of 1 elements of the value of stablehlo.reduce at 10:10"

# On the runtime, which computes these dots and sums itself (a dot or sum
# read by a check is not constant-folded): every file passes, by matching
# the expectation or by arbitration, and the reduce (summed exactly by the
# runtime) with the same note as on the reference.
for f in dot_general_f32_cancel dot_general_float16_2_4_float32_4_2 reduce_add_f32_cancel; do
    run "$PLUMB" run --backend runtime "$FIX/$f.mlir"
    expect_rc "$f passes on the runtime" 0
done
expect_err "runtime: the reduce's note" \
    "note: check.expect_almost_eq_const: arbitration accepted 1 of 1 elements of the value of stablehlo.reduce at 10:10"
run "$PLUMB" run --backend runtime --no-arbitrate "$FIX/reduce_add_f32_cancel.mlir"
expect_rc "reduce_add_f32_cancel fails on the runtime with --no-arbitrate" 1

# A dot of 2^30 products is not recomputed (the cap is 2^28): the check
# fails as written and says why, quickly.
run "$PLUMB" run --backend runtime --timeout 60 "$FIX/dot_too_large.mlir"
expect_rc "dot_too_large fails on the runtime" 1
expect_err "dot_too_large: why it was not arbitrated" \
    "not arbitrated: the checked value comes from stablehlo.dot_general at 10:10, but it has 1073741824 terms, more than the 268435456 recomputed for arbitration"

# The cap counts the recomputed operands too: a small dot of a row of a
# 2^30-term dot is not arbitrated.
run "$PLUMB" run --backend runtime --timeout 60 "$FIX/dot_of_large_cone.mlir"
expect_rc "dot_of_large_cone fails on the runtime" 1
expect_err "dot_of_large_cone: why it was not arbitrated" \
    "but recomputing its operands (up to stablehlo.dot_general at 10:12) takes more than the 268435456 terms"

# An elementwise op of the ULP class (chlo.cosh): the expected value 4 ulp
# from the correctly rounded result loses on both backends (the runtime
# does not constant-fold an op a check reads), and fails as written with
# --no-arbitrate.
for b in ref runtime; do
    run "$PLUMB" run --backend $b "$FIX/ew_cosh.mlir"
    expect_rc "ew_cosh passes by arbitration on $b" 0
    expect_err "ew_cosh on $b: the note names chlo.cosh" \
        "note: check.expect_close: arbitration accepted 1 of 1 elements of the value of chlo.cosh at 12:10"
    expect_err "ew_cosh on $b: the distances" \
        "got 4777.0576 (0x45954876), expected 4777.0596 (0x4595487A): expected value is 4 ulp from the exact result"
    run "$PLUMB" run --backend $b --no-arbitrate "$FIX/ew_cosh.mlir"
    expect_rc "ew_cosh fails on $b with --no-arbitrate" 1
done

# Exact ops never: the same numbers through stablehlo.add fail.
for b in ref runtime; do
    run "$PLUMB" run --backend $b "$FIX/exact_add.mlir"
    expect_rc "exact_add fails on $b with the mode on" 1
    expect_no_err "exact_add on $b: no note" "note:"
    expect_no_err "exact_add on $b: no arbitration" "exact result"
done

# The runtime computes this dot itself (4100 rows, beyond its constant
# folding) in f32, giving 2^-7 (128 ulp from exact, within the op's bound);
# the file expects 2^-7 - 2^-23, 384 ulp from exact, so the runtime's value
# is accepted, and the reference's (exact) too.
w=$FIX/dot_general_f32_cancel_wide.mlir
run "$PLUMB" run --backend runtime "$w"
expect_rc "wide dot on the runtime passes by arbitration" 0
expect_err "runtime: all rows accepted" "arbitration accepted 4100 of 4100 elements"
expect_err "runtime: the expected value is 384 ulp from exact" "expected value is 384 ulp from the exact result"
run "$PLUMB" run --backend runtime --no-arbitrate "$w"
expect_rc "wide dot on the runtime with --no-arbitrate fails" 1
run "$PLUMB" run "$w"
expect_rc "wide dot on the reference passes by arbitration" 0
expect_err "reference: exact, the expected value 384 ulp off" \
    "expected value is 384 ulp from the exact result, which this backend returns (correctly rounded)"

# StableHLO's own dot_general files in the sample still pass.
if [ -d "$TESTDATA" ]; then
    n=0
    for t in "$TESTDATA"/dot_general_*.mlir; do
        [ -f "$t" ] || continue
        n=$((n + 1))
        run "$PLUMB" run "$t"
        expect_rc "testdata $(basename "$t") passes" 0
    done
    [ "$n" -gt 0 ] || { skipped=$((skipped + 1)); echo "skipped: no dot_general files in $TESTDATA"; }
else
    skipped=$((skipped + 1))
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
fi

finish
