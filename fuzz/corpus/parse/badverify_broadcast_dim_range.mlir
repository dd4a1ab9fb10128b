// expect-error: 3:8: stablehlo.broadcast_in_dim: broadcast_dimensions[1] = 5 is out of range for result rank 2 (StableHLO C3)
func.func @main(%a: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 5] : (tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
