#!/bin/sh
# chlo.conj (docs/spec/complex.md): (re, -im) of a complex operand, the
# operand itself, bit for bit, of a float one (CHLO's ConjOp takes floats
# or complex, of the operand's type). Checked on both backends through the
# results' bits (bitcast_convert), so signed zeros and NaN payloads count:
# the imaginary part's sign flips as negate flips it, the real part and a
# float operand keep every bit. Also the generic form, the canonical
# printer, the verifier's refusals, and conj inside a fused group.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init conj
need_plumb

# conj_complex N FT UT RE IM WANT_RE WANT_IM: a program taking the conj of
# a tensor<Nxcomplex<FT>> built from the bit patterns RE and IM (as UT, of
# FT's width) that checks the bits of the result's parts against WANT_RE
# and WANT_IM.
conj_complex() {
    cat <<EOF
func.func @main() {
  %re = stablehlo.constant dense<[$4]> : tensor<$1x$3>
  %im = stablehlo.constant dense<[$5]> : tensor<$1x$3>
  %fr = stablehlo.bitcast_convert %re : (tensor<$1x$3>) -> tensor<$1x$2>
  %fi = stablehlo.bitcast_convert %im : (tensor<$1x$3>) -> tensor<$1x$2>
  %z = stablehlo.complex %fr, %fi : tensor<$1xcomplex<$2>>
  %c = chlo.conj %z : tensor<$1xcomplex<$2>> -> tensor<$1xcomplex<$2>>
  %cr = stablehlo.real %c : (tensor<$1xcomplex<$2>>) -> tensor<$1x$2>
  %ci = stablehlo.imag %c : (tensor<$1xcomplex<$2>>) -> tensor<$1x$2>
  %br = stablehlo.bitcast_convert %cr : (tensor<$1x$2>) -> tensor<$1x$3>
  %bi = stablehlo.bitcast_convert %ci : (tensor<$1x$2>) -> tensor<$1x$3>
  check.expect_eq_const %br, dense<[$6]> : tensor<$1x$3>
  check.expect_eq_const %bi, dense<[$7]> : tensor<$1x$3>
  func.return
}
EOF
}

# conj_keeps TAG N FT UT BITS: the lines of a function body that take the
# conj of the float tensor<NxFT> with the bit patterns BITS (as UT) and
# check that the result has exactly those bits (SSA names start with TAG).
conj_keeps() {
    cat <<EOF
  %$1_b = stablehlo.constant dense<[$5]> : tensor<$2x$4>
  %$1_x = stablehlo.bitcast_convert %$1_b : (tensor<$2x$4>) -> tensor<$2x$3>
  %$1_c = chlo.conj %$1_x : tensor<$2x$3> -> tensor<$2x$3>
  %$1_r = stablehlo.bitcast_convert %$1_c : (tensor<$2x$3>) -> tensor<$2x$4>
  check.expect_eq_const %$1_r, dense<[$5]> : tensor<$2x$4>
EOF
}

# complex<f32>: (1, 2) -> (1, -2); (-0, +0) -> (-0, -0); (+inf, -inf) ->
# (+inf, +inf); (NaN 0x7FC00001, -3) -> (same NaN, 3); (1e-45, -1e-45)
# (subnormals) -> (1e-45, 1e-45). Bits of f32: 1 = 0x3F800000,
# 2 = 0x40000000, -0 = 0x80000000, inf = 0x7F800000, 3 = 0x40400000,
# 2^-149 = 0x00000001.
conj_complex 5 f32 ui32 \
    '0x3F800000, 0x80000000, 0x7F800000, 0x7FC00001, 0x00000001' \
    '0x40000000, 0x00000000, 0xFF800000, 0xC0400000, 0x80000001' \
    '0x3F800000, 0x80000000, 0x7F800000, 0x7FC00001, 0x00000001' \
    '0xC0000000, 0x80000000, 0x7F800000, 0x40400000, 0x00000001' > "$tmp/c64.mlir"
both_pass "complex<f32>: the imaginary part's sign flips, every other bit kept" "$tmp/c64.mlir"

# complex<f64>: (0.1, -0.1) -> (0.1, 0.1); (-2^-1074, 0) -> (-2^-1074, -0);
# 0.1 = 0x3FB999999999999A.
conj_complex 2 f64 ui64 \
    '0x3FB999999999999A, 0x8000000000000001' '0xBFB999999999999A, 0x0000000000000000' \
    '0x3FB999999999999A, 0x8000000000000001' '0x3FB999999999999A, 0x8000000000000000' > "$tmp/c128.mlir"
both_pass "complex<f64>: (re, -im) bit for bit" "$tmp/c128.mlir"

# A float operand is returned unchanged: -0, a signaling NaN's payload
# (0x7F800001), -inf and a subnormal keep their bits in f32; f16, bf16 and
# f64 likewise (-0 and a NaN payload).
{
    echo 'func.func @main() {'
    conj_keeps f32 5 f32 ui32 '0x80000000, 0x7F800001, 0xFF800000, 0x00000001, 0x3F800000'
    conj_keeps f16 3 f16 ui16 '0x8000, 0x7E01, 0x3C00'
    conj_keeps bf16 3 bf16 ui16 '0x8000, 0x7E01, 0x3C00'
    conj_keeps f64 2 f64 ui64 '0x8000000000000000, 0x7FF0000000000123'
    printf '  func.return\n}\n'
} > "$tmp/real.mlir"
both_pass "f32, f16, bf16, f64: the operand itself, bit for bit" "$tmp/real.mlir"

# The small float formats (their per-op tables on the runtime): f8E4M3FN's
# -0 (0x80), NaNs (0x7F, 0xFF), smallest subnormal (0x01) and 1.0 (0x38);
# f8E8M0FNU's NaN (0xFF), 2^-127 (0x00) and 1.0 (0x7F) keep their bits.
{
    echo 'func.func @main() {'
    conj_keeps e4m3 5 f8E4M3FN ui8 '0x80, 0x7F, 0xFF, 0x01, 0x38'
    conj_keeps e8m0 3 f8E8M0FNU ui8 '0xFF, 0x00, 0x7F'
    printf '  func.return\n}\n'
} > "$tmp/lowp.mlir"
both_pass "f8E4M3FN, f8E8M0FNU: the operand itself, bit for bit" "$tmp/lowp.mlir"

# Inside arithmetic the runtime fuses: z * conj(z) = |z|^2 + 0i exactly for
# (3, 4) -> (25, 0); x + conj(x) = 2x for floats (1.5 -> 3, -0.25 -> -0.5).
cat > "$tmp/fused.mlir" <<'EOF'
func.func @main() {
  %z = stablehlo.constant dense<[(3.0, 4.0), (-1.0, 0.5)]> : tensor<2xcomplex<f32>>
  %c = chlo.conj %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %p = stablehlo.multiply %z, %c : tensor<2xcomplex<f32>>
  check.expect_eq_const %p, dense<[(25.0, 0.0), (1.25, 0.0)]> : tensor<2xcomplex<f32>>
  %x = stablehlo.constant dense<[1.5, -0.25, 7.0, 0.0]> : tensor<4xf32>
  %y = chlo.conj %x : tensor<4xf32> -> tensor<4xf32>
  %e = stablehlo.exponential %y : tensor<4xf32>
  %s = stablehlo.add %x, %y : tensor<4xf32>
  check.expect_eq_const %s, dense<[3.0, -0.5, 14.0, 0.0]> : tensor<4xf32>
  func.return
}
EOF
both_pass "conj inside complex multiply and a float add" "$tmp/fused.mlir"

# Parameters: the runtime's compiled kernel, not a folded constant.
cat > "$tmp/param.mlir" <<'EOF'
func.func @main(%z: tensor<2xcomplex<f64>>, %x: tensor<3xf32>) -> (tensor<2xcomplex<f64>>, tensor<3xf32>) {
  %c = chlo.conj %z : tensor<2xcomplex<f64>> -> tensor<2xcomplex<f64>>
  %y = chlo.conj %x : tensor<3xf32> -> tensor<3xf32>
  func.return %c, %y : tensor<2xcomplex<f64>>, tensor<3xf32>
}
EOF
for be in ref runtime; do
    if "$PLUMB" run --backend $be "$tmp/param.mlir" \
        --args '[dense<[(1.5,-2.5),(-0.0,4.0)]> : tensor<2xcomplex<f64>>, dense<[1.0,-2.0,0.5]> : tensor<3xf32>]' \
        > "$tmp/out" 2> "$tmp/err" &&
        grep -q -F 'dense<[(1.5,2.5), (-0.0,-4.0)]>' "$tmp/out" && grep -q -F 'dense<[1.0, -2.0, 0.5]>' "$tmp/out"; then
        ok "parameters through the compiled kernel on $be"
    else
        fail "parameters through the compiled kernel on $be"
    fi
done

# The generic form parses and prints in the pretty form.
cat > "$tmp/gen.mlir" <<'EOF'
func.func @main(%z: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %c = "chlo.conj"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  func.return %c : tensor<2xcomplex<f32>>
}
EOF
expect_pretty "$tmp/gen.mlir" '= chlo.conj %[a-z0-9]* : tensor<2xcomplex<f32>>$'

# The verifier: an integer operand, and a result of another type.
cat > "$tmp/bad1.mlir" <<'EOF'
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c = chlo.conj %x : tensor<2xi32> -> tensor<2xi32>
  func.return %c : tensor<2xi32>
}
EOF
expect_refused "an integer operand is refused, naming the op and the type" "$tmp/bad1.mlir" 'chlo.conj' 'i32'
cat > "$tmp/bad2.mlir" <<'EOF'
func.func @main(%z: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  %c = chlo.conj %z : tensor<2xcomplex<f32>> -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
EOF
expect_refused "a result of another element type is refused" "$tmp/bad2.mlir" 'chlo.conj'
"$PLUMB" ops > "$tmp/out" 2> "$tmp/err"
if grep -q '^chlo.conj ' "$tmp/out"; then ok "plumb ops lists chlo.conj"; else fail "plumb ops lists chlo.conj"; fi
finish
