// expect-error: 3:8: stablehlo.broadcast_in_dim: operand dimension 0 has size 5, which is neither 1 nor result dimension 1's size ? (bound 4) (StableHLO C5)
func.func @main(%a: tensor<5xf32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 4>> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<5xf32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 4>>
  return %0 : tensor<2x?xf32, #stablehlo.bounds<?, 4>>
}
