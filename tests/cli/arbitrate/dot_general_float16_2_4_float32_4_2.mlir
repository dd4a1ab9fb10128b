// The shape of StableHLO's testdata dot_general_float16_*_float32_*.mlir
// (inputs and expected values from called functions, f16 converted to f32,
// check.expect_close against a constant), with expected values that are the
// left-to-right f32 accumulation of the products, derived by hand. ulp(x)
// below is the f32 spacing at x (2^(e-23) for x in [2^e, 2^(e+1))).
//   [0,0]: 1 + 2^-24 + 2^-24 - 0.9921875: 1 + 2^-24 is a tie, to even 1;
//          again 1; 1 - 0.9921875 = 2^-7.  exact 2^-7 + 2^-23: 128 ulp
//   [0,1]: 1 + 2^-24 + 0 - 0.984375 = 2^-6 left to right;
//          exact 2^-6 + 2^-24: 2^-24 / 2^-29 = 32 ulp
//   [1,0]: 2 + 2^-23 + 2^-23 - 1.984375: 2 + 2^-23 is a tie, to even 2;
//          2 - 1.984375 = 2^-6.  exact 2^-6 + 2^-22: 128 ulp
//   [1,1]: 2 + 2^-23 + 0 - 1.96875 = 2^-5;  exact 2^-5 + 2^-23: 32 ulp
module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x2xf32> {jax.result_info = ""}) {
    %0:2 = call @inputs() : () -> (tensor<2x4xf16>, tensor<4x2xf32>)
    %1 = call @expected() : () -> tensor<2x2xf32>
    %2 = stablehlo.convert %0#0 : (tensor<2x4xf16>) -> tensor<2x4xf32>
    %3 = stablehlo.convert %0#1 : tensor<4x2xf32>
    %4 = stablehlo.dot_general %2, %3, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
    stablehlo.custom_call @check.expect_close(%4, %1) {has_side_effect = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    return %4 : tensor<2x2xf32>
  }
  func.func private @inputs() -> (tensor<2x4xf16>, tensor<4x2xf32>) {
    %cst = stablehlo.constant dense<[[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]]> : tensor<2x4xf16>
    %cst_0 = stablehlo.constant dense<[[1.0, 1.0], [5.96046448E-8, 5.96046448E-8], [5.96046448E-8, 0.0], [-0.9921875, -0.984375]]> : tensor<4x2xf32>
    return %cst, %cst_0 : tensor<2x4xf16>, tensor<4x2xf32>
  }
  func.func private @expected() -> tensor<2x2xf32> {
    %cst = stablehlo.constant dense<[[0.0078125, 0.015625], [0.015625, 0.03125]]> : tensor<2x2xf32>
    return %cst : tensor<2x2xf32>
  }
}
