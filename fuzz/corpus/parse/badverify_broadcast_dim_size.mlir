// expect-error: 3:8: stablehlo.broadcast_in_dim: operand dimension 0 has size 3, which is neither 1 nor result dimension 1's size 4 (StableHLO C5)
func.func @main(%a: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
