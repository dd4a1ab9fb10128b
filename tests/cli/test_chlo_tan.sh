#!/bin/sh
# chlo.tan (docs/spec/elementwise.md): CHLO's TanOp, stablehlo.tan under its
# CHLO name (JAX lowered tan to it for a while). Hand-checked values on both
# backends through the results' bits, then chlo.tan == stablehlo.tan bit for
# bit on a few hundred inputs of every float family (f32, f64, f16, bf16,
# complex<f32>, complex<f64>, f8E4M3FN), on each backend, fused with its
# neighbours on the runtime. Also the generic form, the printer, the
# verifier's refusal and `plumb ops`. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init chlo_tan
need_plumb

# Values worked out by hand (docs/spec/elementwise.md: tan within 4 ULP, the
# reference correctly rounded; these are the correctly rounded results):
#  tan(+0) = +0 (0x00000000), tan(-0) = -0 (0x80000000): tan is odd.
#  pi/4 rounded to f32 is 0x3F490FDB = 0.785398185253143310546875, above
#  pi/4 by d = 2.18557e-8; tan(pi/4 + d) = 1 + 2d + 2d^2 + ... = 1 + 4.371e-8,
#  less than half an f32 ULP above 1 (2^-24 = 5.96e-8): 1.0 = 0x3F800000.
#  pi/4 rounded to f64 is 0x3FE921FB54442D18, below pi/4 by 3.0616e-17;
#  tan = 1 - 6.1232e-17, more than half the ULP below 1 (2^-54 = 5.55e-17)
#  away from 1 and less than 1.5 of it: 1 - 2^-53 = 0x3FEFFFFFFFFFFFFF.
#  tan(+inf) = NaN.
cat > "$tmp/vals.mlir" <<'EOF'
func.func @main() {
  %b = stablehlo.constant dense<[0x00000000, 0x80000000, 0x3F490FDB]> : tensor<3xui32>
  %x = stablehlo.bitcast_convert %b : (tensor<3xui32>) -> tensor<3xf32>
  %t = chlo.tan %x : tensor<3xf32> -> tensor<3xf32>
  %r = stablehlo.bitcast_convert %t : (tensor<3xf32>) -> tensor<3xui32>
  check.expect_eq_const %r, dense<[0x00000000, 0x80000000, 0x3F800000]> : tensor<3xui32>
  %d = stablehlo.constant dense<[0x3FE921FB54442D18, 0x8000000000000000]> : tensor<2xui64>
  %y = stablehlo.bitcast_convert %d : (tensor<2xui64>) -> tensor<2xf64>
  %u = chlo.tan %y : tensor<2xf64> -> tensor<2xf64>
  %s = stablehlo.bitcast_convert %u : (tensor<2xf64>) -> tensor<2xui64>
  check.expect_eq_const %s, dense<[0x3FEFFFFFFFFFFFFF, 0x8000000000000000]> : tensor<2xui64>
  %i = stablehlo.constant dense<0x7F800000> : tensor<ui32>
  %f = stablehlo.bitcast_convert %i : (tensor<ui32>) -> tensor<f32>
  %n = chlo.tan %f : tensor<f32> -> tensor<f32>
  %isn = stablehlo.compare NE, %n, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
  check.expect_eq_const %isn, dense<true> : tensor<i1>
  func.return
}
EOF
both_pass "tan(+0) = +0, tan(-0) = -0, tan(f32 pi/4) = 1, tan(f64 pi/4) = 1 - 2^-53, tan(inf) = NaN" "$tmp/vals.mlir"

# complex<f64>: tan(1 + i) = (sin 2 + i sinh 2) / (cos 2 + cosh 2)
#  = 0.909297426825681695 / 4.180707880566438 + i 3.626860407847018767 / 4.180707880566438
#  = 0.2717525853195117 + 1.0839233273386945 i, rounded to f64 (MPFR at 200 bits agrees:
#  0x3FD16464F4A33F88, 0x3FF157BFFCA4A8BD). Within 3 ULP per component
#  (expect_close's default), the complex family's bound being 5u per component.
cat > "$tmp/cplx.mlir" <<'EOF'
func.func @main() {
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %z = stablehlo.complex %one, %one : tensor<complex<f64>>
  %t = chlo.tan %z : tensor<complex<f64>> -> tensor<complex<f64>>
  %re = stablehlo.real %t : (tensor<complex<f64>>) -> tensor<f64>
  %im = stablehlo.imag %t : (tensor<complex<f64>>) -> tensor<f64>
  %er = stablehlo.constant dense<0x3FD16464F4A33F88> : tensor<ui64>
  %ei = stablehlo.constant dense<0x3FF157BFFCA4A8BD> : tensor<ui64>
  %fr = stablehlo.bitcast_convert %er : (tensor<ui64>) -> tensor<f64>
  %fi = stablehlo.bitcast_convert %ei : (tensor<ui64>) -> tensor<f64>
  check.expect_close %re, %fr : tensor<f64>, tensor<f64>
  check.expect_close %im, %fi : tensor<f64>, tensor<f64>
  func.return
}
EOF
both_pass "complex<f64>: tan(1 + i) = 0.2717525853195117 + 1.0839233273386945 i" "$tmp/cplx.mlir"

# tan_same TAG X N FT UT: the lines of a function body that check chlo.tan
# and stablehlo.tan of %X (a tensor<NxFT>) bit for bit, as UT of FT's
# width; the two results are %TAG_c and %TAG_s.
tan_same() {
    cat <<EOF
  %$1_c = chlo.tan %$2 : tensor<$3x$4> -> tensor<$3x$4>
  %$1_s = stablehlo.tan %$2 : tensor<$3x$4>
  %$1_cb = stablehlo.bitcast_convert %$1_c : (tensor<$3x$4>) -> tensor<$3x$5>
  %$1_sb = stablehlo.bitcast_convert %$1_s : (tensor<$3x$4>) -> tensor<$3x$5>
  check.expect_eq %$1_cb, %$1_sb : tensor<$3x$5>
EOF
}

# tan_same_complex TAG X FT UT: the same on the complex<FT> operand whose
# real parts are the first half of %X (a tensor<300xFT>) and imaginary
# parts the second, each part of the results compared bit for bit.
tan_same_complex() {
    cat <<EOF
  %$1_re = stablehlo.slice %$2 [0:150] : (tensor<300x$3>) -> tensor<150x$3>
  %$1_im = stablehlo.slice %$2 [150:300] : (tensor<300x$3>) -> tensor<150x$3>
  %$1_z = stablehlo.complex %$1_re, %$1_im : tensor<150xcomplex<$3>>
  %$1_c = chlo.tan %$1_z : tensor<150xcomplex<$3>> -> tensor<150xcomplex<$3>>
  %$1_s = stablehlo.tan %$1_z : tensor<150xcomplex<$3>>
EOF
    for part in real imag; do
        cat <<EOF
  %$1_${part}_c = stablehlo.$part %$1_c : (tensor<150xcomplex<$3>>) -> tensor<150x$3>
  %$1_${part}_s = stablehlo.$part %$1_s : (tensor<150xcomplex<$3>>) -> tensor<150x$3>
  %$1_${part}_cb = stablehlo.bitcast_convert %$1_${part}_c : (tensor<150x$3>) -> tensor<150x$4>
  %$1_${part}_sb = stablehlo.bitcast_convert %$1_${part}_s : (tensor<150x$3>) -> tensor<150x$4>
  check.expect_eq %$1_${part}_cb, %$1_${part}_sb : tensor<150x$4>
EOF
    done
}

# chlo.tan against stablehlo.tan, bit for bit, on 300 operands per type: the
# bit patterns i * K + C (wrapping) spread over the whole encoding (normals
# of every exponent, subnormals, zeros, infinities, NaNs); all 256 patterns
# of f8E4M3FN; the complex types take their parts from the f32 and f64
# operands. tan(x) + x keeps the runtime's elementwise groups fused around
# each on f32.
{
    cat <<'EOF'
func.func @main() {
  %i32 = stablehlo.iota dim = 0 : tensor<300xui32>
  %k32 = stablehlo.constant dense<14316557> : tensor<300xui32>
  %c32 = stablehlo.constant dense<12345> : tensor<300xui32>
  %m32 = stablehlo.multiply %i32, %k32 : tensor<300xui32>
  %b32 = stablehlo.add %m32, %c32 : tensor<300xui32>
  %x = stablehlo.bitcast_convert %b32 : (tensor<300xui32>) -> tensor<300xf32>
  %i64 = stablehlo.iota dim = 0 : tensor<300xui64>
  %k64 = stablehlo.constant dense<61489146912365173> : tensor<300xui64>
  %m64 = stablehlo.multiply %i64, %k64 : tensor<300xui64>
  %y = stablehlo.bitcast_convert %m64 : (tensor<300xui64>) -> tensor<300xf64>
  %i16 = stablehlo.iota dim = 0 : tensor<300xui16>
  %k16 = stablehlo.constant dense<219> : tensor<300xui16>
  %m16 = stablehlo.multiply %i16, %k16 : tensor<300xui16>
  %h = stablehlo.bitcast_convert %m16 : (tensor<300xui16>) -> tensor<300xf16>
  %w = stablehlo.bitcast_convert %m16 : (tensor<300xui16>) -> tensor<300xbf16>
  %i8 = stablehlo.iota dim = 0 : tensor<256xui8>
  %e = stablehlo.bitcast_convert %i8 : (tensor<256xui8>) -> tensor<256xf8E4M3FN>
EOF
    tan_same f32 x 300 f32 ui32
    cat <<'EOF'
  %s1 = stablehlo.add %f32_c, %x : tensor<300xf32>
  %s2 = stablehlo.add %f32_s, %x : tensor<300xf32>
  %r1 = stablehlo.bitcast_convert %s1 : (tensor<300xf32>) -> tensor<300xui32>
  %r2 = stablehlo.bitcast_convert %s2 : (tensor<300xf32>) -> tensor<300xui32>
  check.expect_eq %r1, %r2 : tensor<300xui32>
EOF
    tan_same f64 y 300 f64 ui64
    tan_same f16 h 300 f16 ui16
    tan_same bf16 w 300 bf16 ui16
    tan_same e4m3 e 256 f8E4M3FN ui8
    tan_same_complex c64 x f32 ui32
    tan_same_complex c128 y f64 ui64
    printf '  func.return\n}\n'
} > "$tmp/same.mlir"
both_pass "chlo.tan == stablehlo.tan bit for bit (f32, f64, f16, bf16, f8E4M3FN, complex<f32>, complex<f64>)" "$tmp/same.mlir"

# The generic form parses and prints in the pretty form, which reads back.
cat > "$tmp/gen.mlir" <<'EOF'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = "chlo.tan"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %t : tensor<2xf32>
}
EOF
expect_pretty "$tmp/gen.mlir" '= chlo.tan %[a-z0-9]* : tensor<2xf32>'

# The verifier refuses an integer operand, naming the op.
cat > "$tmp/bad.mlir" <<'EOF'
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %t = chlo.tan %x : tensor<2xi32> -> tensor<2xi32>
  func.return %t : tensor<2xi32>
}
EOF
expect_refused "an integer operand is refused" "$tmp/bad.mlir" 'chlo.tan'
"$PLUMB" ops > "$tmp/out" 2> "$tmp/err"
if grep -q '^chlo.tan ' "$tmp/out"; then ok "plumb ops lists chlo.tan"; else fail "plumb ops lists chlo.tan"; fi
finish
