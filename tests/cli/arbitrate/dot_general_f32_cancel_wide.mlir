// dot_general_f32_cancel.mlir with every row of the left operand the same
// (a broadcast to 4100 rows), so that the runtime computes the dot itself
// instead of folding it (its constant folding stops at 4096 elements).
// Each of the 4100 results is the sum of the products 1, 2^-24, 2^-24,
// -0.9921875: exact 2^-7 + 2^-23, left to right in f32 2^-7, 128 ulp
// (2^-23 / 2^-30) below it. The file expects 2^-7 - 2^-23 = 0.00781238079
// instead, a further 2^-23 / 2^-31 = 256 ulp below 2^-7 (ulp halves below a
// power of two), so 384 ulp from the exact result: both the exact value and
// the left-to-right one are nearer, and both are within the dot's bound
// (γ(4)·Σ|x| ≈ 4.7e-7, about 500 ulp of 2^-7).
module @jit_main {
  func.func public @main() -> tensor<4100x1xf32> {
    %l = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
    %r = stablehlo.constant dense<[[1.0], [5.96046448E-8], [5.96046448E-8], [-0.9921875]]> : tensor<4x1xf32>
    %lb = stablehlo.broadcast_in_dim %l, dims = [1] : (tensor<4xf32>) -> tensor<4100x4xf32>
    %d = stablehlo.dot_general %lb, %r, contracting_dims = [1] x [0] : (tensor<4100x4xf32>, tensor<4x1xf32>) -> tensor<4100x1xf32>
    %e = stablehlo.constant dense<0.00781238079> : tensor<f32>
    %eb = stablehlo.broadcast_in_dim %e, dims = [] : (tensor<f32>) -> tensor<4100x1xf32>
    stablehlo.custom_call @check.expect_close(%d, %eb) {has_side_effect = true} : (tensor<4100x1xf32>, tensor<4100x1xf32>) -> ()
    return %d : tensor<4100x1xf32>
  }
}
