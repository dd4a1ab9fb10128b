// A failing check of a dot too large to recompute for arbitration:
// 1024 x 1024 results of 1024 products each, 2^30 terms (the cap is 2^28).
// Every product is 1, so every result is exactly 1024; the file expects
// 1023, which no order gives, and the check fails naming why it was not
// arbitrated.
module @jit_main {
  func.func public @main() -> tensor<1024x1024xf32> {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %a = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %e = stablehlo.constant dense<1023.0> : tensor<f32>
    %eb = stablehlo.broadcast_in_dim %e, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    stablehlo.custom_call @check.expect_close(%d, %eb) {has_side_effect = true} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> ()
    return %d : tensor<1024x1024xf32>
  }
}
