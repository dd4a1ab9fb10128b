#!/bin/sh
# Batch norm at the ends of the float range (docs/spec/batchnorm.md,
# "Extreme values"): programs whose intermediates overflow or underflow
# f64 although the results are representable, and special values in
# batch_norm_grad, run on the reference and the runtime with every check
# passing. The expected values are derived by hand in the comments.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init bnx

cat > "$tmp/ext.mlir" <<'EOF'
// x = +-1e308: mean 0, variance 1e616 (past f64's largest, so batch_var
// rounds to inf), output x / sqrt(1e616) = +-1 exactly (eps = 0). The
// squares overflow f64 on the way.
func.func @training_f64_square_overflow() {
  %x = stablehlo.constant dense<[[1.0e308], [-1.0e308], [1.0e308], [-1.0e308]]> : tensor<4x1xf64>
  %s = stablehlo.constant dense<[1.0]> : tensor<1xf64>
  %o = stablehlo.constant dense<[0.0]> : tensor<1xf64>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : (tensor<4x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<4x1xf64>, tensor<1xf64>, tensor<1xf64>)
  check.expect_eq_const %y, dense<[[1.0], [-1.0], [1.0], [-1.0]]> : tensor<4x1xf64>
  check.expect_eq_const %m, dense<[0.0]> : tensor<1xf64>
  check.expect_eq_const %v, dense<0x7FF0000000000000> : tensor<1xf64>
  func.return
}

// -----

// x = 1.5e308 three times and -1.5e308 (feature dimension not innermost):
// the sum 3e308 overflows f64, the mean 0.75e308 does not; d = 0.75e308
// (three times) and -2.25e308, variance (3 * 0.5625 + 5.0625) e616 / 4 =
// 1.6875e616, sqrt = 0.75e308 * sqrt(3), so the output is 1/sqrt(3)
// = 0.57735026918962576 and -sqrt(3) = -1.7320508075688772.
func.func @training_f64_sum_overflow() {
  %x = stablehlo.constant dense<[[[1.5e308, 1.5e308]], [[1.5e308, -1.5e308]]]> : tensor<2x1x2xf64>
  %s = stablehlo.constant dense<[1.0]> : tensor<1xf64>
  %o = stablehlo.constant dense<[0.0]> : tensor<1xf64>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : (tensor<2x1x2xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<2x1x2xf64>, tensor<1xf64>, tensor<1xf64>)
  check.expect_almost_eq_const %y, dense<[[[0.57735026918962576, 0.57735026918962576]], [[0.57735026918962576, -1.7320508075688772]]]> : tensor<2x1x2xf64>
  check.expect_eq_const %m, dense<[0.75e308]> : tensor<1xf64>
  check.expect_eq_const %v, dense<0x7FF0000000000000> : tensor<1xf64>
  func.return
}

// -----

// x = +-2^-1070 (subnormal): variance 2^-2140 underflows f64 (batch_var
// is 0), output x / 2^-1070 = +-1 exactly (eps = 0); in double the
// squares underflow to 0 and the output would be +-inf.
func.func @training_f64_subnormal() {
  %x = stablehlo.constant dense<[[0x0000000000000010], [0x8000000000000010]]> : tensor<2x1xf64>
  %s = stablehlo.constant dense<[1.0]> : tensor<1xf64>
  %o = stablehlo.constant dense<[0.0]> : tensor<1xf64>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : (tensor<2x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<2x1xf64>, tensor<1xf64>, tensor<1xf64>)
  check.expect_eq_const %y, dense<[[1.0], [-1.0]]> : tensor<2x1xf64>
  check.expect_eq_const %m, dense<[0.0]> : tensor<1xf64>
  check.expect_eq_const %v, dense<[0.0]> : tensor<1xf64>
  func.return
}

// -----

// grad with g = -inf, x = 0, mean = 1: the spec's P = sum g (x - mean) =
// -inf * -1 = +inf (not sum g x - mean sum g = NaN - inf), so grad_scale
// = inf / sqrt(0 + eps) = inf, grad_offset = -inf, grad_operand =
// scale / s * (g - G - d P / q) = 1/s * (-inf + inf - ...) = NaN.
func.func @grad_f16_infinite_gradient() {
  %x = stablehlo.constant dense<[0.0]> : tensor<1xf16>
  %s = stablehlo.constant dense<[1.0]> : tensor<1xf16>
  %m = stablehlo.constant dense<[1.0]> : tensor<1xf16>
  %v = stablehlo.constant dense<[0.0]> : tensor<1xf16>
  %g = stablehlo.constant dense<[0xFC00]> : tensor<1xf16>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) <{epsilon = 1.000000e-01 : f32, feature_index = 0 : i64}> : (tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> (tensor<1xf16>, tensor<1xf16>, tensor<1xf16>)
  %nan = stablehlo.compare NE, %gx, %gx : (tensor<1xf16>, tensor<1xf16>) -> tensor<1xi1>
  check.expect_eq_const %nan, dense<true> : tensor<1xi1>
  check.expect_eq_const %gs, dense<[0x7C00]> : tensor<1xf16>
  check.expect_eq_const %go, dense<[0xFC00]> : tensor<1xf16>
  func.return
}

// -----

// grad with variance = inf: s = inf, so scale / (N s) = 0 and P / q = 0:
// grad_operand = 0 * (N g - G - 0) = 0 (g = 1, 2: T = 2g - 3 finite),
// grad_scale = P / inf = 0, grad_offset = 3.
func.func @grad_f32_infinite_variance() {
  %x = stablehlo.constant dense<[[1.0], [4.0]]> : tensor<2x1xf32>
  %s = stablehlo.constant dense<[2.0]> : tensor<1xf32>
  %m = stablehlo.constant dense<[2.0]> : tensor<1xf32>
  %v = stablehlo.constant dense<[0x7F800000]> : tensor<1xf32>
  %g = stablehlo.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<1xf32>, tensor<1xf32>)
  %z = stablehlo.abs %gx : tensor<2x1xf32>
  check.expect_eq_const %z, dense<0.0> : tensor<2x1xf32>
  check.expect_eq_const %gs, dense<[0.0]> : tensor<1xf32>
  check.expect_eq_const %go, dense<[3.0]> : tensor<1xf32>
  func.return
}
EOF

for backend in ref runtime; do
    if "$PLUMB" run --backend "$backend" --split-input-file "$tmp/ext.mlir" > "$tmp/out" 2> "$tmp/err"; then
        ok "extreme values: every check passes on the $backend"
    else
        fail "extreme values: a check fails on the $backend"
    fi
done

finish
