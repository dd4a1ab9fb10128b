#!/bin/sh
# chlo.mulhi (docs/spec/elementwise.md) through plumb run on the reference
# and the runtime, inputs passed with --args so the runtime's kernel runs
# (no constant folding). Hand-derived values: i8 -128 * 127 = -16256 =
# 0xC080 -> -64, 64 * -4 = -256 -> -1, 3 * -5 = -15 -> -1 (floor), -1 * -1
# -> 0; ui16 65535^2 = 0xFFFE0001 -> 65534, 61440 * 16 = 0xF0000 -> 15;
# i64 (-2^63)^2 = 2^126 -> 2^62, (2^32 + 1)^2 = 2^64 + 2^33 + 1 -> 1,
# -2^63 * (2^63 - 1) -> floor(-(2^62 - 1/2)) = -2^62; ui64 (2^64 - 1)^2 ->
# 2^64 - 2. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init mulhi
cat > "$tmp/p.mlir" <<'MLIR'
func.func @main(%a: tensor<4xi8>, %b: tensor<4xi8>, %c: tensor<2xui16>, %d: tensor<2xui16>, %e: tensor<3xi64>, %f: tensor<3xi64>, %g: tensor<1xui64>) -> (tensor<4xi8>, tensor<2xui16>, tensor<3xi64>, tensor<1xui64>) {
  %0 = chlo.mulhi %a, %b : tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
  %1 = "chlo.mulhi"(%c, %d) : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
  %2 = chlo.mulhi %e, %f : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %3 = chlo.mulhi %g, %g : tensor<1xui64>, tensor<1xui64> -> tensor<1xui64>
  return %0, %1, %2, %3 : tensor<4xi8>, tensor<2xui16>, tensor<3xi64>, tensor<1xui64>
}
MLIR
cat > "$tmp/want" <<'OUT'
tensor<4xi8> dense<[-64, -1, -1, 0]>
tensor<2xui16> dense<[65534, 15]>
tensor<3xi64> dense<[4611686018427387904, 1, -4611686018427387904]>
tensor<1xui64> dense<18446744073709551614>
OUT
args='[dense<[-128, 64, 3, -1]> : tensor<4xi8>, dense<[127, -4, -5, -1]> : tensor<4xi8>, dense<[65535, 61440]> : tensor<2xui16>, dense<[65535, 16]> : tensor<2xui16>, dense<[-9223372036854775808, 4294967297, -9223372036854775808]> : tensor<3xi64>, dense<[-9223372036854775808, 4294967297, 9223372036854775807]> : tensor<3xi64>, dense<[18446744073709551615]> : tensor<1xui64>]'
expect_both_file "chlo.mulhi gives the hand-derived high halves" "$tmp/want" "$tmp/p.mlir" --args "$args"
# a float operand is refused with a message naming the op
printf 'func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = chlo.mulhi %%x, %%x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/bad.mlir"
run "$PLUMB" run "$tmp/bad.mlir"
if [ "$rc" != 0 ] && grep -q "chlo.mulhi" "$tmp/err"; then ok "a float mulhi is refused naming the op"
else fail "a float mulhi is refused naming the op (exit $rc)"; cat "$tmp/err"; fi
finish
