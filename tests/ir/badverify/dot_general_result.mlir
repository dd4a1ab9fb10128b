// expect-error: 3:8: stablehlo.dot_general: result 0 (%0): type tensor<5x2xf32> does not match the inferred type tensor<2x5xf32> (StableHLO C12)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<5x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}
