// expect-error: 3:8: stablehlo.transpose: permutation[1] = 0 repeats permutation[0] (StableHLO C2)
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
