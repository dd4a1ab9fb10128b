// expect-error: 3:8: stablehlo.compare: result 0 (%0): type tensor<2xf32> does not match the inferred type tensor<2xi1> (StableHLO C2)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.compare GT, %a, %a, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
