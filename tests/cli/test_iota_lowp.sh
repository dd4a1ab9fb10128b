#!/bin/sh
# stablehlo.iota and stablehlo.dynamic_iota on the small float formats and
# i2/i4/ui2/ui4 (docs/spec/types.md): the index converted to the element
# type as convert does, hand-derived values on the reference and the
# runtime. Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init iota-lowp
skipped=0

# f4E2M1FN holds {0, 0.5, 1, 1.5, 2, 3, 4, 6}: 5 is the tie of 4 (1.0x2^2,
# even) and 6 (1.1x2^2): 4; 7 is the tie of 6 and 8 (beyond the largest
# value), which rounds to even 8 and saturates to 6 (FP4 has no inf/NaN).
# f6E3M2FN: integers to 8 exact, then a step of 2: 9 ties to 8 (1.00x2^3),
# 11 ties to 12 (1.10x2^3). f6E2M3FN: largest 7.5; 8 and 9 saturate to it.
# f8E4M3FN: step 2 from 16: 17 ties to 16, 19 ties to 20 (1.010x2^4).
# Its top binade steps by 32 up to 448 (1.110x2^8): 462, 463 round to 448,
# 464 ties to 448 (even) rather than 480, 465 rounds up past 448: NaN
# (0x7F; FN has no inf). f8E5M2: 57344 (1.11x2^15) is the largest, the next
# step is 65536 = inf: 61439 rounds to 57344, 61440 ties to even 65536: inf.
# f8E8M0FNU holds only powers of two and no zero: 0 becomes 2^-127 (6.0e-39),
# the codec's rule for a format without zero; a tie (3, 6) rounds up, as
# APFloat does when the significand is the implicit bit alone; 5 -> 4, 7 -> 8.
# 448 and 57344 print as 450.0 and 60000.0 (the shortest decimals that read
# back). f8E5M2FNUZ along dimension 1 of 2x3: each row 0, 1, 2.
# Integers wrap modulo 2^bits as i8 iota does: i4 8 -> -8, 9 -> -7;
# ui2 4 -> 0; i2 2 -> -2, 3 -> -1, 4 -> 0.
cat > "$tmp/p.mlir" <<'MLIR'
func.func @main() -> (tensor<8xf4E2M1FN>, tensor<12xf6E3M2FN>, tensor<10xf6E2M3FN>, tensor<20xf8E4M3FN>, tensor<4xf8E4M3FN>, tensor<3xf8E5M2>, tensor<9xf8E8M0FNU>, tensor<2x3xf8E5M2FNUZ>, tensor<10xi4>, tensor<5xui2>, tensor<5xi2>) {
  %0 = stablehlo.iota dim = 0 : tensor<8xf4E2M1FN>
  %1 = stablehlo.iota dim = 0 : tensor<12xf6E3M2FN>
  %2 = stablehlo.iota dim = 0 : tensor<10xf6E2M3FN>
  %3 = stablehlo.iota dim = 0 : tensor<20xf8E4M3FN>
  %w = stablehlo.iota dim = 0 : tensor<466xf8E4M3FN>
  %4 = stablehlo.slice %w [462:466] : (tensor<466xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  %v = stablehlo.iota dim = 0 : tensor<61441xf8E5M2>
  %5 = stablehlo.slice %v [61438:61441] : (tensor<61441xf8E5M2>) -> tensor<3xf8E5M2>
  %6 = stablehlo.iota dim = 0 : tensor<9xf8E8M0FNU>
  %7 = stablehlo.iota dim = 1 : tensor<2x3xf8E5M2FNUZ>
  %8 = stablehlo.iota dim = 0 : tensor<10xi4>
  %9 = stablehlo.iota dim = 0 : tensor<5xui2>
  %10 = stablehlo.iota dim = 0 : tensor<5xi2>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<8xf4E2M1FN>, tensor<12xf6E3M2FN>, tensor<10xf6E2M3FN>, tensor<20xf8E4M3FN>, tensor<4xf8E4M3FN>, tensor<3xf8E5M2>, tensor<9xf8E8M0FNU>, tensor<2x3xf8E5M2FNUZ>, tensor<10xi4>, tensor<5xui2>, tensor<5xi2>
}
MLIR
cat > "$tmp/want" <<'OUT'
tensor<8xf4E2M1FN> dense<[0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 6.0, 6.0]>
tensor<12xf6E3M2FN> dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.0, 10.0, 12.0]>
tensor<10xf6E2M3FN> dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 7.5, 7.5]>
tensor<20xf8E4M3FN> dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 16.0, 18.0, 20.0]>
tensor<4xf8E4M3FN> dense<[450.0, 450.0, 450.0, 0x7F]>
tensor<3xf8E5M2> dense<[60000.0, 60000.0, 0x7C]>
tensor<9xf8E8M0FNU> dense<[6.0e-39, 1.0, 2.0, 4.0, 4.0, 4.0, 8.0, 8.0, 8.0]>
tensor<2x3xf8E5M2FNUZ> dense<[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]>
tensor<10xi4> dense<[0, 1, 2, 3, 4, 5, 6, 7, -8, -7]>
tensor<5xui2> dense<[0, 1, 2, 3, 0]>
tensor<5xi2> dense<[0, 1, -2, -1, 0]>
OUT
expect_both_file "iota on the small types gives the hand-derived values" "$tmp/want" "$tmp/p.mlir"

# dynamic_iota takes the same conversion: output_shape [8] in f4E2M1FN and
# [3, 2] in i4 along dimension 0 (rows 0, 1, 2).
cat > "$tmp/d.mlir" <<'MLIR'
func.func @main() -> (tensor<?xf4E2M1FN>, tensor<?x?xi4>) {
  %s = stablehlo.constant dense<[8]> : tensor<1xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf4E2M1FN>
  %t = stablehlo.constant dense<[3, 2]> : tensor<2xi32>
  %1 = stablehlo.dynamic_iota %t, dim = 0 : (tensor<2xi32>) -> tensor<?x?xi4>
  return %0, %1 : tensor<?xf4E2M1FN>, tensor<?x?xi4>
}
MLIR
cat > "$tmp/dwant" <<'OUT'
tensor<8xf4E2M1FN> dense<[0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 6.0, 6.0]>
tensor<3x2xi4> dense<[[0, 0], [1, 1], [2, 2]]>
OUT
expect_both_file "dynamic_iota on the small types gives the hand-derived values" "$tmp/dwant" "$tmp/d.mlir"
finish
