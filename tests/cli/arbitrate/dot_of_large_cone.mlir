// A failing check of a small dot whose operand comes from a large one: the
// check's dot has 1024 terms, but recomputing its operand means rerunning
// a 1024 x 1024 x 1024 dot (2^30 terms, the cap is 2^28), so it is not
// arbitrated. Every product is 1: each element of %big is 1024 and %d is
// 1024 · 1024 = 1048576 exactly; the file expects 1048575.
module @jit_main {
  func.func public @main() -> tensor<1x1xf32> {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %a = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %big = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %row = stablehlo.slice %big [0:1, 0:1024] : (tensor<1024x1024xf32>) -> tensor<1x1024xf32>
    %c = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<1024x1xf32>
    %d = stablehlo.dot_general %row, %c, contracting_dims = [1] x [0] : (tensor<1x1024xf32>, tensor<1024x1xf32>) -> tensor<1x1xf32>
    %e = stablehlo.constant dense<1048575.0> : tensor<1x1xf32>
    stablehlo.custom_call @check.expect_close(%d, %e) {has_side_effect = true} : (tensor<1x1xf32>, tensor<1x1xf32>) -> ()
    return %d : tensor<1x1xf32>
  }
}
