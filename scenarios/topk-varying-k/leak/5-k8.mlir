// top_k with a data-dependent k (8 here): k is traced as a static attribute,
// so each k is a new program.
func.func @main(%scores: tensor<16x32xf32>) -> tensor<16xf32> {
  %v, %i = chlo.top_k(%scores, k = 8) : (tensor<16x32xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) loc("router.py":30:14)
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%v init: %c0) applies stablehlo.add across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32> loc("router.py":31:9)
  return %s : tensor<16xf32>
}
