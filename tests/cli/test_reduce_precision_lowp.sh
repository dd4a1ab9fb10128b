#!/bin/sh
# stablehlo.reduce_precision on the FP8/FP6/FP4 formats (docs/spec/types.md,
# "reduce_precision"): hand-derived values on the reference and the runtime,
# and the two backends agreeing on every pattern of each 8-bit format.
# Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init rprec-lowp
skipped=0

# The value is rounded to exponent_bits e, mantissa_bits m (nearest even;
# with m = 0 a tie goes to the even exponent pattern of the reduced
# format, whose bias 2^(e-1)-1 is odd: 1.5 -> 2, 3 -> 2, 6 -> 8), an exponent
# above 2^(e-1)-1 overflows to inf, one below 2-2^(e-1) flushes to 0; then
# back to the format by convert's rule.
# f8E4M3FN e3m1 (normal range [0.25, 12]): 1.125 = 1.001b -> 1; 1.375 = 1.011b
#   -> 1.5; 448 = 1.11b x 2^8 -> 2^9 -> inf -> NaN 0x7F (FN has no inf);
#   2^-6 and the subnormal 2^-9 -> 0; -3.5 = -1.11b x 2 ties to -4.
# f8E5M2 e2m0 (values 1, 2): 1.25 -> 1; 1.75 -> 2; 57344 -> inf (0x7C); inf
#   stays inf; the NaN 0x7E with no mantissa bit left is +inf; -0 stays -0.
# f4E2M1FN e2m0: 0.5 -> 0; 1.5 -> 2; 3 -> 2 (tie, even exponent); 6 -> 8 ->
#   inf, which FP4 (no inf, no NaN) saturates to 6; -6 -> -6.
# f6E3M2FN e2m1 (normal range [1, 3]): 1.25 ties to 1; 1.75 ties to 2;
#   3.5 -> 4 -> inf -> 28 (saturated); 0.5 -> 0; 28 -> inf -> 28.
# f6E2M3FN e5m0: the subnormal 0.375 = 1.1b x 2^-2 is rounded relative to its
#   own leading bit: 0.5; 0.125 stays (prints 0.1); 7.5 = 1.111b x 2^2 -> 8,
#   beyond f6E2M3FN's largest 7.5, which convert saturates to.
# f8E4M3FNUZ e3m0: -0.125 -> -0 -> +0 (FNUZ has no -0); the NaN 0x80 -> +inf
#   -> NaN 0x80; 0.3125 = 1.01b x 2^-2 -> 0.25.
# f8E8M0FNU e3m0 (range [2^-2, 2^3]): 2^-3 -> 0, which has no code: 2^-127
#   (prints 6.0e-39, convert's rule); 0.25 (prints 0.2) and 8 stay; 16 ->
#   inf -> NaN 0xFF; the NaN -> +inf -> NaN 0xFF.
# f8E4M3 e4m0: the NaNs 0x79 and 0xF9 both become +inf 0x78; 1.5 -> 2.
# f8E5M2 e11m52 holds f8E5M2: the NaN 0x7D is unchanged, 1.25 (prints 1.2).
# f8E4M3B11FNUZ e4m3: 1.0625 = 1.0001b ties to 1; 1.1875 = 1.0011b -> 1.25.
# f8E5M2FNUZ e5m0: the NaN -> NaN; 3 = 1.1b x 2 ties to 2 (even exponent).
# f8E3M4 e3m3: 1.03125 = 1.00001b ties to 1; 1.09375 -> 1.125 (prints 1.1).
cat > "$tmp/p.mlir" <<'MLIR'
func.func @main() -> (tensor<6xf8E4M3FN>, tensor<6xf8E5M2>, tensor<5xf4E2M1FN>, tensor<5xf6E3M2FN>, tensor<3xf6E2M3FN>, tensor<3xf8E4M3FNUZ>, tensor<5xf8E8M0FNU>, tensor<3xf8E4M3>, tensor<2xf8E5M2>, tensor<2xf8E4M3B11FNUZ>, tensor<2xf8E5M2FNUZ>, tensor<2xf8E3M4>) {
  %p = stablehlo.constant dense<[1.125, 1.375, 448.0, 0.015625, 0.001953125, -3.5]> : tensor<6xf8E4M3FN>
  %q = stablehlo.reduce_precision %p, format = e3m1 : tensor<6xf8E4M3FN>
  %s = stablehlo.constant dense<[1.25, 1.75, 57344.0, 0x7C, 0x7E, -0.0]> : tensor<6xf8E5M2>
  %t = stablehlo.reduce_precision %s, format = e2m0 : tensor<6xf8E5M2>
  %a = stablehlo.constant dense<[0.5, 1.5, 3.0, 6.0, -6.0]> : tensor<5xf4E2M1FN>
  %0 = stablehlo.reduce_precision %a, format = e2m0 : tensor<5xf4E2M1FN>
  %b = stablehlo.constant dense<[1.25, 1.75, 3.5, 0.5, 28.0]> : tensor<5xf6E3M2FN>
  %1 = stablehlo.reduce_precision %b, format = e2m1 : tensor<5xf6E3M2FN>
  %c = stablehlo.constant dense<[0.375, 0.125, 7.5]> : tensor<3xf6E2M3FN>
  %2 = stablehlo.reduce_precision %c, format = e5m0 : tensor<3xf6E2M3FN>
  %d = stablehlo.constant dense<[-0.125, 0x80, 0.3125]> : tensor<3xf8E4M3FNUZ>
  %3 = stablehlo.reduce_precision %d, format = e3m0 : tensor<3xf8E4M3FNUZ>
  %e = stablehlo.constant dense<[0.125, 0.25, 8.0, 16.0, 0xFF]> : tensor<5xf8E8M0FNU>
  %4 = stablehlo.reduce_precision %e, format = e3m0 : tensor<5xf8E8M0FNU>
  %f = stablehlo.constant dense<[0x79, 0xF9, 1.5]> : tensor<3xf8E4M3>
  %5 = stablehlo.reduce_precision %f, format = e4m0 : tensor<3xf8E4M3>
  %g = stablehlo.constant dense<[0x7D, 1.25]> : tensor<2xf8E5M2>
  %6 = stablehlo.reduce_precision %g, format = e11m52 : tensor<2xf8E5M2>
  %h = stablehlo.constant dense<[1.0625, 1.1875]> : tensor<2xf8E4M3B11FNUZ>
  %7 = stablehlo.reduce_precision %h, format = e4m3 : tensor<2xf8E4M3B11FNUZ>
  %i = stablehlo.constant dense<[0x80, 3.0]> : tensor<2xf8E5M2FNUZ>
  %8 = stablehlo.reduce_precision %i, format = e5m0 : tensor<2xf8E5M2FNUZ>
  %j = stablehlo.constant dense<[1.03125, 1.09375]> : tensor<2xf8E3M4>
  %9 = stablehlo.reduce_precision %j, format = e3m3 : tensor<2xf8E3M4>
  return %q, %t, %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<6xf8E4M3FN>, tensor<6xf8E5M2>, tensor<5xf4E2M1FN>, tensor<5xf6E3M2FN>, tensor<3xf6E2M3FN>, tensor<3xf8E4M3FNUZ>, tensor<5xf8E8M0FNU>, tensor<3xf8E4M3>, tensor<2xf8E5M2>, tensor<2xf8E4M3B11FNUZ>, tensor<2xf8E5M2FNUZ>, tensor<2xf8E3M4>
}
MLIR
cat > "$tmp/want" <<'OUT'
tensor<6xf8E4M3FN> dense<[1.0, 1.5, 0x7F, 0.0, 0.0, -4.0]>
tensor<6xf8E5M2> dense<[1.0, 2.0, 0x7C, 0x7C, 0x7C, -0.0]>
tensor<5xf4E2M1FN> dense<[0.0, 2.0, 2.0, 6.0, -6.0]>
tensor<5xf6E3M2FN> dense<[1.0, 2.0, 28.0, 0.0, 28.0]>
tensor<3xf6E2M3FN> dense<[0.5, 0.1, 7.5]>
tensor<3xf8E4M3FNUZ> dense<[0.0, 0x80, 0.25]>
tensor<5xf8E8M0FNU> dense<[6.0e-39, 0.2, 8.0, 0xFF, 0xFF]>
tensor<3xf8E4M3> dense<[0x78, 0x78, 2.0]>
tensor<2xf8E5M2> dense<[0x7D, 1.2]>
tensor<2xf8E4M3B11FNUZ> dense<[1.0, 1.2]>
tensor<2xf8E5M2FNUZ> dense<[0x80, 2.0]>
tensor<2xf8E3M4> dense<[1.0, 1.1]>
OUT
expect_both_file "reduce_precision on the small float formats gives the hand-derived values" "$tmp/want" "$tmp/p.mlir"

# Every pattern of each 8-bit format (bitcast from ui8 iota) through four
# formats, from a wide one that keeps every value to e1m0: both backends
# print the same patterns, and e11m52 (which holds every value of these
# formats, and keeps a NaN that has mantissa bits left) returns the input.
seq_line=$(i=0; s=""; while [ $i -lt 256 ]; do s="$s${s:+, }$i"; i=$((i + 1)); done; echo "tensor<256xui8> dense<[$s]>")
for t in f8E4M3FN f8E5M2 f8E4M3FNUZ f8E5M2FNUZ f8E4M3B11FNUZ f8E3M4 f8E4M3 f8E8M0FNU; do
    {
        echo "func.func @main() -> (tensor<256xui8>, tensor<256xui8>, tensor<256xui8>, tensor<256xui8>) {"
        echo "  %i = stablehlo.iota dim = 0 : tensor<256xui8>"
        echo "  %x = stablehlo.bitcast_convert %i : (tensor<256xui8>) -> tensor<256x$t>"
        k=0
        for fmt in e11m52 e3m2 e2m1 e1m0; do
            echo "  %r$k = stablehlo.reduce_precision %x, format = $fmt : tensor<256x$t>"
            echo "  %b$k = stablehlo.bitcast_convert %r$k : (tensor<256x$t>) -> tensor<256xui8>"
            k=$((k + 1))
        done
        echo "  return %b0, %b1, %b2, %b3 : tensor<256xui8>, tensor<256xui8>, tensor<256xui8>, tensor<256xui8>"
        echo "}"
    } > "$tmp/e.mlir"
    if "$PLUMB" run --backend ref "$tmp/e.mlir" > "$tmp/ref" 2> "$tmp/err" &&
        "$PLUMB" run --backend runtime "$tmp/e.mlir" > "$tmp/rt" 2>> "$tmp/err" && cmp -s "$tmp/ref" "$tmp/rt" &&
        [ "$(wc -l < "$tmp/ref")" -eq 4 ] && [ "$(head -n 1 "$tmp/ref")" = "$seq_line" ]; then
        ok "reduce_precision on every $t pattern agrees between ref and runtime, e11m52 keeping each"
    else
        fail "reduce_precision on every $t pattern agrees between ref and runtime, e11m52 keeping each"
        diff "$tmp/ref" "$tmp/rt" | head -5 | sed 's/^/    /'
        sed 's/^/    /' "$tmp/err"
    fi
done

finish
