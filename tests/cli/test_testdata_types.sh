#!/bin/sh
# The small element types (docs/spec/types.md) end to end through the CLI:
# StableHLO's interpreter-test samples that use them with only supported
# ops run (--split-input-file) on the reference and the runtime with every
# case passing, a convert program gives the hand-derived bits on both
# backends, and bad literals are rejected naming the element.
# Ends with "N passed, N failed, N skipped".
PLUMB=${PLUMB:-build/plumb}
SHARED=${SHARED:-../shared}
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
passed=0
failed=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-types.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [ -s "$tmp/err" ]; then tail -n 3 "$tmp/err" | sed 's/^/    /'; fi
}

# Interpreter samples whose every case uses only supported types and ops
# (constant.mlir: i2/ui2/i4/ui4 and every FP8/FP6/FP4 format; iota.mlir: i4;
# dot_general.mlir: f8E3M4 and f8E4M3 dots with FP8 results, none failed;
# its `algorithm` case runs too, tests/cli/test_dotalg.sh).
INTERPRET="constant.mlir iota.mlir dot_general.mlir"

if [ ! -x "$PLUMB" ]; then
    bad "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

if [ -d "$IDIR" ]; then
    for name in $INTERPRET; do
        for b in ref runtime; do
            if "$PLUMB" run --backend "$b" --split-input-file "$IDIR/$name" > "$tmp/out" 2> "$tmp/err" &&
                grep -q " 0 failed" "$tmp/out" "$tmp/err"; then
                ok "$name (--split-input-file) passes on $b"
            else
                bad "$name (--split-input-file) passes on $b"
            fi
        done
    done
else
    echo "skipped: StableHLO interpreter test files not found; set STABLEHLO_INTERPRET=DIR (see README)"
    skipped=$((skipped + 1))
fi

# convert by hand: 1.0625 in f8E4M3FN is a tie between 1.0 (0x38) and
# 1.125 (0x39): to even, 0x38. 500.0 exceeds 448 + 16 (half an ulp): NaN
# 0x7F. In f8E5M2, 500.0 lies between 448 (0x5F) and 512 (0x60), nearer 512,
# which prints as the shortest decimal that reads back to it: 500.0.
# f4E2M1FN saturates: 7.0 -> 6.0 (0x7). i4 of 9.7 truncates to 9 and
# saturates to 7; -3.5 -> -3 (0xD).
cat > "$tmp/cv.mlir" <<'MLIR'
func.func @main() -> (tensor<2xf8E4M3FN>, tensor<f8E5M2>, tensor<f4E2M1FN>, tensor<2xi4>) {
  %0 = stablehlo.constant dense<[1.0625, 500.0]> : tensor<2xf32>
  %1 = stablehlo.convert %0 : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  %2 = stablehlo.constant dense<500.0> : tensor<f64>
  %3 = stablehlo.convert %2 : (tensor<f64>) -> tensor<f8E5M2>
  %4 = stablehlo.constant dense<7.0> : tensor<f32>
  %5 = stablehlo.convert %4 : (tensor<f32>) -> tensor<f4E2M1FN>
  %6 = stablehlo.constant dense<[9.7, -3.5]> : tensor<2xf32>
  %7 = stablehlo.convert %6 : (tensor<2xf32>) -> tensor<2xi4>
  return %1, %3, %5, %7 : tensor<2xf8E4M3FN>, tensor<f8E5M2>, tensor<f4E2M1FN>, tensor<2xi4>
}
MLIR
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/cv.mlir" > "$tmp/out" 2> "$tmp/err" &&
        grep -qx 'tensor<2xf8E4M3FN> dense<\[1.0, 0x7F\]>' "$tmp/out" &&
        grep -qx 'tensor<f8E5M2> dense<500.0>' "$tmp/out" &&
        grep -qx 'tensor<f4E2M1FN> dense<6.0>' "$tmp/out" &&
        grep -qx 'tensor<2xi4> dense<\[7, -3\]>' "$tmp/out"; then
        ok "convert to f8E4M3FN/f8E5M2/f4E2M1FN/i4 gives the hand-derived values on $b"
    else
        cat "$tmp/out" >> "$tmp/err"
        bad "convert to f8E4M3FN/f8E5M2/f4E2M1FN/i4 gives the hand-derived values on $b"
    fi
done

# bad_literal NAME LITERAL TYPE PATTERN: the constant is rejected with PATTERN
bad_literal() {
    printf 'func.func @main() -> tensor<%s> {\n  %%0 = stablehlo.constant dense<%s> : tensor<%s>\n  return %%0 : tensor<%s>\n}\n' \
        "$3" "$2" "$3" "$3" > "$tmp/bad.mlir"
    if ! "$PLUMB" run "$tmp/bad.mlir" > "$tmp/out" 2> "$tmp/err" && grep -q "$4" "$tmp/err"; then
        ok "$1"
    else
        bad "$1"
    fi
}
bad_literal "an i4 of 9 is out of range, at its column" '[1, 9]' '2xi4' 'bad.mlir:2:37: error: value 9 is out of range for i4'
bad_literal "a ui2 of 4 is out of range" '[4]' '1xui2' 'value 4 is out of range for ui2'
bad_literal "f8E4M3FN 500.0 rounds beyond 448" '[1.0, 500.0]' '2xf8E4M3FN' 'value 500.0 is out of range for f8E4M3FN (its largest finite value is 448)'
bad_literal "f4E2M1FN 7.0 rounds beyond 6 (no silent saturation)" '7.0' 'f4E2M1FN' 'out of range for f4E2M1FN'
bad_literal "f8E8M0FNU has no negative values" '-1.0' 'f8E8M0FNU' 'has no negative values'
bad_literal "f8E4M3FN has no infinity" 'inf' 'f8E4M3FN' 'f8E4M3FN has no infinity'
bad_literal "f6E2M3FN has no NaN" 'nan' 'f6E2M3FN' 'f6E2M3FN has no NaN'
bad_literal "a hex pattern wider than f4E2M1FN" '0x10' 'f4E2M1FN' 'does not fit the 4 bits of f4E2M1FN'
bad_literal "a raw i4 byte with bits above the width, by index" '"0x0110"' '2xi4' 'raw i4 element 1 is 0x10'
bad_literal "a raw payload of the wrong length" '"0x010203"' '2xf8E5M2' 'raw literal has 3 bytes, expected 2'

# An op the spec gives floats (or integers) but plumb does not run on the new
# formats yet is reported unsupported, never a verification error and never a
# pass; an op whose spec excludes the type altogether stays an error.
# op_on NAME OP TYPE WANT: verify `OP %a : (T) -> T` and look for WANT.
op_on() {
    printf 'func.func @main(%%a: tensor<2x%s>) -> tensor<2x%s> {\n  %%0 = %s %%a : tensor<2x%s>\n  return %%0 : tensor<2x%s>\n}\n' \
        "$3" "$3" "$2" "$3" "$3" > "$tmp/op.mlir"
    "$PLUMB" verify "$tmp/op.mlir" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -qF -- "$4" "$tmp/err"; then ok "$1"; else bad "$1 (exit $rc)"; fi
}
# (every float op of the table runs on f8E4M3FN now: bessel_i1e, the last
# elementwise one refused, verifies)
"$PLUMB" ops | grep -q '^chlo.bessel_i1e .*f8E4M3FN' && ok "bessel_i1e takes f8E4M3FN" || bad "bessel_i1e takes f8E4M3FN"
op_on "popcnt on f8E5M2 is invalid (an integer op)" stablehlo.popcnt f8E5M2 'element type f8E5M2 is not accepted'

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
