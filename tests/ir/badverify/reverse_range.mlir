// expect-error: 3:8: stablehlo.reverse: dimensions[0] = 2 is out of range for operand rank 2 (StableHLO C3)
func.func @main(%a: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = stablehlo.reverse %a, dims = [2] : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
