#!/bin/sh
# stablehlo.reduce with an add body on f16 and bf16 where the exact sum lies
# just off a midpoint of the element type (a midpoint plus a tiny term): the
# runtime must round the sum once, as the reference does, not to double
# first (which loses the tiny term and ties to even). Every path of the
# runtime's reduce kernel: short rows, several rows, one long row (its
# blocks over threads), columns, long columns. The expected values are
# derived by hand in the comments; each program runs on the reference (the
# oracle) and on the runtime. Run by tests/run.sh with PLUMB set; ends with
# "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init rdhalf
need_plumb

TINY=1.4346413748966574e-24   # a bf16 value, far below double's last bit at 10
X='x=dense<[-1.28125, 11.6875, 0.0]> : tensor<3xbf16>'
NX='x=dense<[1.28125, -11.6875, 0.0]> : tensor<3xbf16>'

# A row -1.28125, 11.6875, 0 sums to 10.40625, exactly the midpoint of the
# bf16 neighbours 10.375 (0x4126, even) and 10.4375 (0x4127); the init TINY
# puts the exact sum above it: 10.4375 (printed 10.44, the shortest decimal
# that reads back). Rounding to double first ties to even: 10.375 (printed
# 10.4). A negative init puts the sum below the midpoint: 10.375; the
# negated row with -TINY lies beyond -10.40625: -10.4375.
cat > "$tmp/r1.mlir" <<'MLIR'
func.func @main(%x: tensor<3xbf16>, %i: tensor<bf16>) -> tensor<bf16> {
  %r = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0] : (tensor<3xbf16>, tensor<bf16>) -> tensor<bf16>
  return %r : tensor<bf16>
}
MLIR
expect_both "bf16 row sum a tiny init above a midpoint rounds up" 'tensor<bf16> dense<10.44>' "$tmp/r1.mlir" \
    --input "$X" --input "i=dense<$TINY> : tensor<bf16>"
expect_both "bf16 row sum a tiny init below a midpoint rounds down" 'tensor<bf16> dense<10.4>' "$tmp/r1.mlir" \
    --input "$X" --input "i=dense<-$TINY> : tensor<bf16>"
expect_both "bf16 negative row sum a tiny init past a midpoint rounds away" 'tensor<bf16> dense<-10.44>' "$tmp/r1.mlir" \
    --input "$NX" --input "i=dense<-$TINY> : tensor<bf16>"
expect_both "bf16 row sum on a midpoint ties to even" 'tensor<bf16> dense<10.4>' "$tmp/r1.mlir" \
    --input "$X" --input "i=dense<0.0> : tensor<bf16>"
# every term -0 and a -0 init: the sum is -0 (no add rounds, the sign stays)
expect_both "bf16 row sum of negative zeros is -0" 'tensor<bf16> dense<-0.0>' "$tmp/r1.mlir" \
    --input 'x=dense<[-0.0, -0.0, -0.0]> : tensor<3xbf16>' --input 'i=dense<-0.0> : tensor<bf16>'

# two rows: the first as above with TINY (10.4375), the second its
# negation (-10.40625 + TINY lies toward zero from the midpoint: -10.375)
cat > "$tmp/r2.mlir" <<'MLIR'
func.func @main(%x: tensor<2x3xbf16>, %i: tensor<bf16>) -> tensor<2xbf16> {
  %r = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2xbf16>
  return %r : tensor<2xbf16>
}
MLIR
expect_both "bf16 sums of two rows round once each" 'tensor<2xbf16> dense<[10.44, -10.4]>' "$tmp/r2.mlir" \
    --input 'x=dense<[[-1.28125, 11.6875, 0.0], [1.28125, -11.6875, 0.0]]> : tensor<2x3xbf16>' --input "i=dense<$TINY> : tensor<bf16>"

# columns: the same two sums down the columns of the transposed operand
cat > "$tmp/c1.mlir" <<'MLIR'
func.func @main(%x: tensor<3x2xbf16>, %i: tensor<bf16>) -> tensor<2xbf16> {
  %r = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0] : (tensor<3x2xbf16>, tensor<bf16>) -> tensor<2xbf16>
  return %r : tensor<2xbf16>
}
MLIR
expect_both "bf16 column sums round once each" 'tensor<2xbf16> dense<[10.44, -10.4]>' "$tmp/c1.mlir" \
    --input 'x=dense<[[-1.28125, 1.28125], [11.6875, -11.6875], [0.0, 0.0]]> : tensor<3x2xbf16>' --input "i=dense<$TINY> : tensor<bf16>"

# a reduce between elementwise ops on its rows (a fused row group on the
# runtime): e = -x = [-1.28125, 11.6875, 0] per row, s = 10.4375 as above,
# e - s = [-11.71875 (a midpoint: to even, -11.75), 1.25, -10.4375]
cat > "$tmp/f1.mlir" <<'MLIR'
func.func @main(%x: tensor<2x3xbf16>, %i: tensor<bf16>) -> tensor<2x3xbf16> {
  %e = stablehlo.negate %x : tensor<2x3xbf16>
  %r = stablehlo.reduce(%e init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2xbf16>
  %b = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<2xbf16>) -> tensor<2x3xbf16>
  %o = stablehlo.subtract %e, %b : tensor<2x3xbf16>
  return %o : tensor<2x3xbf16>
}
MLIR
expect_both "bf16 row sums inside elementwise row ops round once" 'tensor<2x3xbf16> dense<[[-11.75, 1.25, -10.44], [-11.75, 1.25, -10.44]]>' "$tmp/f1.mlir" \
    --input 'x=dense<[[1.28125, -11.6875, 0.0], [1.28125, -11.6875, 0.0]]> : tensor<2x3xbf16>' --input "i=dense<$TINY> : tensor<bf16>"

# long rows and columns: the operand padded with 9000 zeros (more than
# four blocks of 2048, so one long row's blocks go to the threads), the
# same sums
cat > "$tmp/r3.mlir" <<'MLIR'
func.func @main(%x: tensor<3xbf16>, %i: tensor<bf16>) -> tensor<bf16> {
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %p = stablehlo.pad %x, %z, low = [0], high = [9000], interior = [0] : (tensor<3xbf16>, tensor<bf16>) -> tensor<9003xbf16>
  %r = stablehlo.reduce(%p init: %i) applies stablehlo.add across dimensions = [0] : (tensor<9003xbf16>, tensor<bf16>) -> tensor<bf16>
  return %r : tensor<bf16>
}
MLIR
expect_both "bf16 long row sum a tiny init above a midpoint rounds up" 'tensor<bf16> dense<10.44>' "$tmp/r3.mlir" \
    --input "$X" --input "i=dense<$TINY> : tensor<bf16>"
expect_both "bf16 long row sum a tiny init below a midpoint rounds down" 'tensor<bf16> dense<10.4>' "$tmp/r3.mlir" \
    --input "$X" --input "i=dense<-$TINY> : tensor<bf16>"
cat > "$tmp/c2.mlir" <<'MLIR'
func.func @main(%x: tensor<3x2xbf16>, %i: tensor<bf16>) -> tensor<2xbf16> {
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %p = stablehlo.pad %x, %z, low = [0, 0], high = [9000, 0], interior = [0, 0] : (tensor<3x2xbf16>, tensor<bf16>) -> tensor<9003x2xbf16>
  %r = stablehlo.reduce(%p init: %i) applies stablehlo.add across dimensions = [0] : (tensor<9003x2xbf16>, tensor<bf16>) -> tensor<2xbf16>
  return %r : tensor<2xbf16>
}
MLIR
expect_both "bf16 long column sums round once each" 'tensor<2xbf16> dense<[10.44, -10.4]>' "$tmp/c2.mlir" \
    --input 'x=dense<[[-1.28125, 1.28125], [11.6875, -11.6875], [0.0, 0.0]]> : tensor<3x2xbf16>' --input "i=dense<$TINY> : tensor<bf16>"

# f16: 1024 + 0.5 is the midpoint of 1024 (even) and 1025; 2^-24 (the
# smallest f16 subnormal) puts the sum above it: 1025. f16 sums of up to
# 8192 terms are exact in double (multiples of 2^-24 below 2^29); a long
# row need not be: t (2^-24), 16384 times 65504, 16384 times -65504, 1024,
# 0.5: 32771 terms in 17 blocks of 2048, where the runtime's pairwise fold
# of the first eight blocks' sums (2^-24 plus about 2^30, whose double ulp
# is 2^-23) drops the 2^-24. The exact sum is still 1024.5 + 2^-24: 1025.
# With t = 0 it ties to even: 1024. The column form sums the same terms
# down both columns of the row broadcast to 32771x2.
cat > "$tmp/h1.mlir" <<'MLIR'
func.func @main(%t: tensor<1xf16>, %i: tensor<f16>) -> tensor<f16> {
  %m = stablehlo.constant dense<65504.0> : tensor<16384xf16>
  %n = stablehlo.constant dense<-65504.0> : tensor<16384xf16>
  %b = stablehlo.constant dense<[1024.0, 0.5]> : tensor<2xf16>
  %row = stablehlo.concatenate %t, %m, %n, %b, dim = 0 : (tensor<1xf16>, tensor<16384xf16>, tensor<16384xf16>, tensor<2xf16>) -> tensor<32771xf16>
  %r = stablehlo.reduce(%row init: %i) applies stablehlo.add across dimensions = [0] : (tensor<32771xf16>, tensor<f16>) -> tensor<f16>
  return %r : tensor<f16>
}
MLIR
expect_both "f16 long row sum a tiny term above a midpoint rounds up" 'tensor<f16> dense<1025.0>' "$tmp/h1.mlir" \
    --input 't=dense<5.9604644775390625e-08> : tensor<1xf16>' --input 'i=dense<0.0> : tensor<f16>'
expect_both "f16 long row sum on a midpoint ties to even" 'tensor<f16> dense<1024.0>' "$tmp/h1.mlir" \
    --input 't=dense<0.0> : tensor<1xf16>' --input 'i=dense<0.0> : tensor<f16>'
cat > "$tmp/h2.mlir" <<'MLIR'
func.func @main(%t: tensor<1xf16>, %i: tensor<f16>) -> tensor<2xf16> {
  %m = stablehlo.constant dense<65504.0> : tensor<16384xf16>
  %n = stablehlo.constant dense<-65504.0> : tensor<16384xf16>
  %b = stablehlo.constant dense<[1024.0, 0.5]> : tensor<2xf16>
  %row = stablehlo.concatenate %t, %m, %n, %b, dim = 0 : (tensor<1xf16>, tensor<16384xf16>, tensor<16384xf16>, tensor<2xf16>) -> tensor<32771xf16>
  %col = stablehlo.broadcast_in_dim %row, dims = [0] : (tensor<32771xf16>) -> tensor<32771x2xf16>
  %r = stablehlo.reduce(%col init: %i) applies stablehlo.add across dimensions = [0] : (tensor<32771x2xf16>, tensor<f16>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}
MLIR
expect_both "f16 long column sums a tiny term above a midpoint round up" 'tensor<2xf16> dense<1025.0>' "$tmp/h2.mlir" \
    --input 't=dense<5.9604644775390625e-08> : tensor<1xf16>' --input 'i=dense<0.0> : tensor<f16>'
finish
