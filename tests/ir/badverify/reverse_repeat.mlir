// expect-error: 3:8: stablehlo.reverse: dimensions[1] = 0 repeats dimensions[0] (StableHLO C2)
func.func @main(%a: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = stablehlo.reverse %a, dims = [0, 0] : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
