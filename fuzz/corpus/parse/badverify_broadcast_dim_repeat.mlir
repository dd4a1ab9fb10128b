// expect-error: 3:8: stablehlo.broadcast_in_dim: broadcast_dimensions[1] = 1 repeats broadcast_dimensions[0] (StableHLO C4)
func.func @main(%a: tensor<1x3xf32>) -> tensor<3x3xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 1] : (tensor<1x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
