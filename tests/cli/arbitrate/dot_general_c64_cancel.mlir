// A StableHLO-testdata-shaped complex dot_general (as JAX writes
// dot_general_*_complex64_3_6) whose expected value is the left-to-right
// f32 accumulation of each component, derived by hand: lhs is 1 (real)
// four times, so both components of the product are sums of the rhs
// components in order: 1, 2^-24, 2^-24, -0.9921875 (= -1 + 2^-7).
//   1 + 2^-24 = 1 (a tie, to even); again 1; 1 - 0.9921875 = 2^-7 exactly
// so each expected component is 2^-7 = 0.0078125, while the exact sum is
// 2^-7 + 2^-23 = 0.00781261921 (an f32), 2^-23 / ulp(2^-7) = 128 ulp away.
module @jit_main {
  func.func public @main() -> tensor<1x1xcomplex<f32>> {
    %0:2 = call @inputs() : () -> (tensor<1x4xcomplex<f32>>, tensor<4x1xcomplex<f32>>)
    %1 = call @expected() : () -> tensor<1x1xcomplex<f32>>
    %2 = stablehlo.dot_general %0#0, %0#1, contracting_dims = [1] x [0] : (tensor<1x4xcomplex<f32>>, tensor<4x1xcomplex<f32>>) -> tensor<1x1xcomplex<f32>>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<1x1xcomplex<f32>>, tensor<1x1xcomplex<f32>>) -> ()
    return %2 : tensor<1x1xcomplex<f32>>
  }
  func.func private @inputs() -> (tensor<1x4xcomplex<f32>>, tensor<4x1xcomplex<f32>>) {
    %cst = stablehlo.constant dense<[[(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0)]]> : tensor<1x4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<[[(1.0, 1.0)], [(5.96046448E-8, 5.96046448E-8)], [(5.96046448E-8, 5.96046448E-8)], [(-0.9921875, -0.9921875)]]> : tensor<4x1xcomplex<f32>>
    return %cst, %cst_0 : tensor<1x4xcomplex<f32>>, tensor<4x1xcomplex<f32>>
  }
  func.func private @expected() -> tensor<1x1xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0.0078125, 0.0078125)> : tensor<1x1xcomplex<f32>>
    return %cst : tensor<1x1xcomplex<f32>>
  }
}
