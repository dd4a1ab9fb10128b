#!/bin/sh
# chlo.erf_inv and chlo.next_after on the small float formats
# (docs/spec/types.md, "next_after and erf_inv"), hand-derived values on
# the reference and the runtime. Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init lowp-ops
skipped=0

# erf_inv, f8E4M3FN: erf^-1(0.5) = 0.47694 lies between 0.46875 (0x2F) and
# 0.5 (0x30), below their midpoint 0.484375: 0x2F, printed 0.47;
# erf^-1(0.875) = 1.08479, above the midpoint 1.0625 of 1.0 and 1.125: 1.125
# (printed 1.1); erf^-1(-0.0625) = -0.055446, between 0.0546875 (0x16) and
# 0.05859375 below their midpoint 0.056640625: -0.0546875 (0x96, -0.055);
# erf^-1(1) = +inf, which f8E4M3FN lacks: its NaN 0x7F.
# f4E2M1FN: erf^-1(0.5) = 0.477 rounds to 0.5; erf^-1(-1) = -inf saturates
# to -6.0 (FP4 has neither infinity nor NaN).
# next_after, f8E4M3FN: 1 -> 2 gives 1.125, 1 -> 0 gives 0.9375 (0.94),
# 448 -> -448 gives 416 (printed 420: the shortest decimal that reads back),
# 0 -> -1 gives -2^-9 (-0.002), 0 -> 1 gives 2^-9, -2^-9 -> 1 gives -0.
# f8E4M3FNUZ (no -0): -2^-10 -> 1 gives +0, 0 -> -1 gives -2^-10 (-0.001).
# f6E2M3FN: 7.5 -> 1 gives 7.0, 0.125 (its smallest subnormal) -> 0 gives 0.
# f8E8M0FNU: 2^-126 -> 2^-127 (6.0e-39), 2^-127 -> 2^127 gives 2^-126.
# f8E5M2: 57344 -> +inf gives +inf (0x7C), 1 -> +inf gives 1.25 (1.2).
cat > "$tmp/p.mlir" <<'MLIR'
func.func @main() -> (tensor<4xf8E4M3FN>, tensor<2xf4E2M1FN>, tensor<6xf8E4M3FN>, tensor<2xf8E4M3FNUZ>, tensor<2xf6E2M3FN>, tensor<2xf8E8M0FNU>, tensor<2xf8E5M2>) {
  %a = stablehlo.constant dense<[0.5, 0.875, -0.0625, 1.0]> : tensor<4xf8E4M3FN>
  %0 = chlo.erf_inv %a : tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  %b = stablehlo.constant dense<[0.5, -1.0]> : tensor<2xf4E2M1FN>
  %1 = chlo.erf_inv %b : tensor<2xf4E2M1FN> -> tensor<2xf4E2M1FN>
  %x = stablehlo.constant dense<[1.0, 1.0, 448.0, 0.0, 0.0, -0.001953125]> : tensor<6xf8E4M3FN>
  %y = stablehlo.constant dense<[2.0, 0.0, -448.0, -1.0, 1.0, 1.0]> : tensor<6xf8E4M3FN>
  %2 = chlo.next_after %x, %y : tensor<6xf8E4M3FN>, tensor<6xf8E4M3FN> -> tensor<6xf8E4M3FN>
  %p = stablehlo.constant dense<[0x81, 0x00]> : tensor<2xf8E4M3FNUZ>
  %q = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf8E4M3FNUZ>
  %3 = chlo.next_after %p, %q : tensor<2xf8E4M3FNUZ>, tensor<2xf8E4M3FNUZ> -> tensor<2xf8E4M3FNUZ>
  %r = stablehlo.constant dense<[7.5, 0.125]> : tensor<2xf6E2M3FN>
  %s = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf6E2M3FN>
  %4 = chlo.next_after %r, %s : tensor<2xf6E2M3FN>, tensor<2xf6E2M3FN> -> tensor<2xf6E2M3FN>
  %e = stablehlo.constant dense<[0x00, 0xFE]> : tensor<2xf8E8M0FNU>
  %g = stablehlo.constant dense<[0x01, 0x00]> : tensor<2xf8E8M0FNU>
  %5 = chlo.next_after %g, %e : tensor<2xf8E8M0FNU>, tensor<2xf8E8M0FNU> -> tensor<2xf8E8M0FNU>
  %h = stablehlo.constant dense<[57344.0, 1.0]> : tensor<2xf8E5M2>
  %k = stablehlo.constant dense<[0x7C, 0x7C]> : tensor<2xf8E5M2>
  %6 = chlo.next_after %h, %k : tensor<2xf8E5M2>, tensor<2xf8E5M2> -> tensor<2xf8E5M2>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf8E4M3FN>, tensor<2xf4E2M1FN>, tensor<6xf8E4M3FN>, tensor<2xf8E4M3FNUZ>, tensor<2xf6E2M3FN>, tensor<2xf8E8M0FNU>, tensor<2xf8E5M2>
}
MLIR
cat > "$tmp/want" <<'OUT'
tensor<4xf8E4M3FN> dense<[0.47, 1.1, -0.055, 0x7F]>
tensor<2xf4E2M1FN> dense<[0.5, -6.0]>
tensor<6xf8E4M3FN> dense<[1.1, 0.94, 420.0, -0.002, 0.002, -0.0]>
tensor<2xf8E4M3FNUZ> dense<[0.0, -0.001]>
tensor<2xf6E2M3FN> dense<[7.0, 0.0]>
tensor<2xf8E8M0FNU> dense<[6.0e-39, 1.0e-38]>
tensor<2xf8E5M2> dense<[0x7C, 1.2]>
OUT
expect_both_file "erf_inv and next_after on the small formats give the hand-derived values" "$tmp/want" "$tmp/p.mlir"
finish
