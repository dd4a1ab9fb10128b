// expect-error: 3:8: stablehlo.add: result 0 (%0): type tensor<5x4xf32> does not match the inferred type tensor<3x4xf32> (StableHLO C1)
func.func @main(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = stablehlo.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
