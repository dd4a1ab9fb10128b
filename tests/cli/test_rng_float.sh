#!/bin/sh
# rng_bit_generator with floating-point outputs (docs/spec/rng.md, "State
# and layout"): a float output of width w holds exactly the bits the
# unsigned integer output of width w would hold, NaN patterns included.
# Each program compares, on the reference and on the runtime, the float
# output bitcast to integers with the integer output of the same state
# (check.expect_eq) and with Random123's published Philox-4x32-10
# known-answer vector (check.expect_eq_const): key a4093822 299f31d0,
# counter 243f6a88 85a308d3 13198a2e 03707344 give the words
# d16cfe09 94fdcceb 5001e420 24126ea1 (tests/ref/test_rng.c), elements 0..3
# of a 32-bit Philox output. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init rngfloat
need_plumb

# kat FLOAT INT WORDS: the Philox known-answer state's 4-element FLOAT
# output, bitcast to INT, equals the INT output and WORDS; both results
# leave the same state.
kat() {
    cat <<MLIR
func.func @main() {
  %s = stablehlo.constant dense<[0x299f31d0a4093822, 0x85a308d3243f6a88, 0x0370734413198a2e]> : tensor<3xui64>
  %sf, %f = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4x$1>)
  %si, %i = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4x$2>)
  %b = stablehlo.bitcast_convert %f : (tensor<4x$1>) -> tensor<4x$2>
  check.expect_eq %b, %i : tensor<4x$2>
  check.expect_eq_const %b, dense<$3> : tensor<4x$2>
  check.expect_eq %sf, %si : tensor<3xui64>
  func.return
}
MLIR
}

# check DESC FILE: FILE's checks pass on both backends
check() {
    for b in ref runtime; do
        if "$PLUMB" run --backend "$b" "$2" > "$tmp/out" 2> "$tmp/err"; then ok "$1 on $b"
        else fail "$1 on $b"; fi
    done
}

# The words d16cfe09 94fdcceb 5001e420 24126ea1 in decimal; their low 16
# bits fe09 cceb e420 6ea1, low 8 bits 09 eb 20 a1, low 4 bits 9 b 0 1.
kat f32 ui32 "[3513581065, 2499661035, 1342301216, 605187745]" > "$tmp/f32.mlir"
check "f32 output: the ui32 output's bits and the Philox known-answer words" "$tmp/f32.mlir"
kat f16 ui16 "[65033, 52459, 58400, 28321]" > "$tmp/f16.mlir"
check "f16 output: the ui16 output's bits (low 16 bits of the known-answer words)" "$tmp/f16.mlir"
kat bf16 ui16 "[65033, 52459, 58400, 28321]" > "$tmp/bf16.mlir"
check "bf16 output: the ui16 output's bits (low 16 bits of the known-answer words)" "$tmp/bf16.mlir"
kat f8E4M3FN ui8 "[9, 235, 32, 161]" > "$tmp/f8.mlir"
check "f8E4M3FN output: the ui8 output's bits (low 8 bits of the known-answer words)" "$tmp/f8.mlir"
kat f4E2M1FN ui4 "[9, 11, 0, 1]" > "$tmp/f4.mlir"
check "f4E2M1FN output: the ui4 output's bits (low 4 bits of the known-answer words)" "$tmp/f4.mlir"

# A wrong expected word must fail the check (the comparison can fail).
kat f32 ui32 "[3513581064, 2499661035, 1342301216, 605187745]" > "$tmp/wrong.mlir"
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/wrong.mlir" > "$tmp/out" 2> "$tmp/err"; then
        fail "a wrong expected word fails the f32 check on $b (it passed)"
    else
        ok "a wrong expected word fails the f32 check on $b"
    fi
done

# A NaN pattern survives: with the counter advanced by 423 blocks
# (0x85a308d3243f6a88 + 423 = 0x85a308d3243f6c2f), Philox-4x32-10 block 0
# is ffb5fb41 8dbfb156 f6a2fba2 36168577 (computed with an independent
# implementation checked against the known-answer vector); ffb5fb41 has an
# all-ones exponent and the quiet bit clear: a negative signaling NaN,
# which a float copy that canonicalized NaNs would change.
cat > "$tmp/nan.mlir" <<'MLIR'
func.func @main() {
  %s = stablehlo.constant dense<[0x299f31d0a4093822, 0x85a308d3243f6c2f, 0x0370734413198a2e]> : tensor<3xui64>
  %sf, %f = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xf32>)
  %b = stablehlo.bitcast_convert %f : (tensor<4xf32>) -> tensor<4xui32>
  check.expect_eq_const %b, dense<[4290116417, 2378150230, 4137876386, 907445623]> : tensor<4xui32>
  %n = stablehlo.compare NE, %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %n, dense<[true, false, false, false]> : tensor<4xi1>
  func.return
}
MLIR
check "a signaling NaN pattern in an f32 output survives uncanonicalized" "$tmp/nan.mlir"

# wide FLOAT INT ALG STATE SHAPE: a larger output of every layout (THREE_FRY
# split in pairs, Philox 64-bit pairs of words) equals the integer one.
wide() {
    cat <<MLIR
func.func @main() {
  %s = stablehlo.constant dense<$4> : tensor<$5xui64>
  %sf, %f = stablehlo.rng_bit_generator %s, algorithm = $3 : (tensor<$5xui64>) -> (tensor<$5xui64>, tensor<6x5x$1>)
  %si, %i = stablehlo.rng_bit_generator %s, algorithm = $3 : (tensor<$5xui64>) -> (tensor<$5xui64>, tensor<6x5x$2>)
  %b = stablehlo.bitcast_convert %f : (tensor<6x5x$1>) -> tensor<6x5x$2>
  check.expect_eq %b, %i : tensor<6x5x$2>
  check.expect_eq %sf, %si : tensor<$5xui64>
  func.return
}
MLIR
}
for alg in THREE_FRY PHILOX; do
    for p in f64:ui64 f32:ui32 f16:ui16 bf16:ui16 f8E5M2:ui8 f8E4M3FNUZ:ui8 f8E8M0FNU:ui8 f4E2M1FN:ui4; do
        ft=${p%%:*} it=${p#*:}
        wide "$ft" "$it" "$alg" "[12345, 0xFFFFFFFFFFFFFFF0]" 2 > "$tmp/w.mlir"
        check "$alg 6x5x$ft output: the 6x5x$it output's bits" "$tmp/w.mlir"
    done
done

finish
