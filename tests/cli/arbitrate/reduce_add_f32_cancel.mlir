// A sum (reduce with an add body) whose expected value is the left-to-right
// f32 accumulation from the init value, derived by hand:
//   0 + 1 = 1; 1 + 2^-24 is a tie, to even 1; again 1; 1 - 0.9921875 = 2^-7
// while the exact sum is 2^-7 + 2^-23, 2^-23 / ulp(2^-7) = 2^-23 / 2^-30 =
// 128 ulp away.
module @jit_main {
  func.func public @main() -> tensor<f32> {
    %x = stablehlo.constant dense<[1.0, 5.96046448E-8, 5.96046448E-8, -0.9921875]> : tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    stablehlo.custom_call @check.expect_almost_eq_const(%s) {value = dense<0.0078125> : tensor<f32>, tolerance = 1.0e-9 : f64, has_side_effect = true} : (tensor<f32>) -> ()
    return %s : tensor<f32>
  }
}
