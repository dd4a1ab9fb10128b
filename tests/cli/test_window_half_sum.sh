#!/bin/sh
# reduce_window with an add body on f16 and bf16, where the exact window
# sum lies just off a midpoint of the element type (a midpoint plus a tiny
# init value): the runtime must round the sum once, as the reference does,
# not to double first (which loses the tiny term and ties to even). The
# expected values are derived by hand in the comments; each program runs
# on the reference (the oracle) and on the runtime. Run by tests/run.sh
# with PLUMB set; ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init rwhalf
need_plumb

# rank 1, one window of 4 over a padded operand: init (padding), -1.28125,
# 11.6875, 0. The terms sum to 10.40625, exactly the midpoint of the bf16
# neighbours 10.375 (0x4126, even) and 10.4375 (0x4127); two copies of the
# init 1.4346413748966574e-24 (a bf16 value, far below double's last bit
# at 10) put the exact sum above it: 10.4375. Rounding to double first
# would tie to even, 10.375. With a negative init the sum lies below the
# midpoint: 10.375, and the negated terms give -10.4375. (plumb run prints
# the shortest decimal that reads back to the bf16 value: 10.44, 10.4.)
cat > "$tmp/r1.mlir" <<'MLIR'
func.func @main(%x: tensor<3xbf16>, %i: tensor<bf16>) -> tensor<1xbf16> {
  %r = "stablehlo.reduce_window"(%x, %i) <{window_dimensions = array<i64: 4>, padding = dense<[[1, 0]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %s = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %s : tensor<bf16>
  }) : (tensor<3xbf16>, tensor<bf16>) -> tensor<1xbf16>
  return %r : tensor<1xbf16>
}
MLIR
expect_both "bf16 window sum a tiny init above a midpoint rounds up" 'tensor<1xbf16> dense<10.44>' "$tmp/r1.mlir" \
    --input 'x=dense<[-1.28125, 11.6875, 0.0]> : tensor<3xbf16>' --input 'i=dense<1.4346413748966574e-24> : tensor<bf16>'
expect_both "bf16 window sum a tiny init below a midpoint rounds down" 'tensor<1xbf16> dense<10.4>' "$tmp/r1.mlir" \
    --input 'x=dense<[-1.28125, 11.6875, 0.0]> : tensor<3xbf16>' --input 'i=dense<-1.4346413748966574e-24> : tensor<bf16>'
expect_both "bf16 negative window sum a tiny init past a midpoint rounds away" 'tensor<1xbf16> dense<-10.44>' "$tmp/r1.mlir" \
    --input 'x=dense<[1.28125, -11.6875, 0.0]> : tensor<3xbf16>' --input 'i=dense<-1.4346413748966574e-24> : tensor<bf16>'
# every term -0 and a -0 init: the sum is -0 (no add rounds, the sign stays)
expect_both "bf16 window sum of negative zeros is -0" 'tensor<1xbf16> dense<-0.0>' "$tmp/r1.mlir" \
    --input 'x=dense<[-0.0, -0.0, -0.0]> : tensor<3xbf16>' --input 'i=dense<-0.0> : tensor<bf16>'

# rank 2, the padding on the outer dimension (a whole window row of init
# values): init, init, -1.28125, 11.6875, so 10.40625 + 2 * tiny: 10.4375.
cat > "$tmp/r2.mlir" <<'MLIR'
func.func @main(%x: tensor<1x2xbf16>, %i: tensor<bf16>) -> tensor<1x1xbf16> {
  %r = "stablehlo.reduce_window"(%x, %i) <{window_dimensions = array<i64: 2, 2>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>}> ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %s = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %s : tensor<bf16>
  }) : (tensor<1x2xbf16>, tensor<bf16>) -> tensor<1x1xbf16>
  return %r : tensor<1x1xbf16>
}
MLIR
expect_both "bf16 window sum with a padded outer row rounds up" 'tensor<1x1xbf16> dense<10.44>' "$tmp/r2.mlir" \
    --input 'x=dense<[[-1.28125, 11.6875]]> : tensor<1x2xbf16>' --input 'i=dense<1.4346413748966574e-24> : tensor<bf16>'

# f16: 1024 + 0.5 is the midpoint of 1024 (even) and 1025; two copies of
# the init 2^-24 (the smallest f16 subnormal) put the sum above it: 1025.
sed 's/bf16/f16/g' "$tmp/r1.mlir" > "$tmp/h1.mlir"
expect_both "f16 window sum a tiny init above a midpoint rounds up" 'tensor<1xf16> dense<1025.0>' "$tmp/h1.mlir" \
    --input 'x=dense<[1024.0, 0.5, 0.0]> : tensor<3xf16>' --input 'i=dense<5.9604644775390625e-08> : tensor<f16>'
expect_both "f16 window sum on a midpoint ties to even" 'tensor<1xf16> dense<1024.0>' "$tmp/h1.mlir" \
    --input 'x=dense<[1024.0, 0.5, 0.0]> : tensor<3xf16>' --input 'i=dense<0.0> : tensor<f16>'
finish
