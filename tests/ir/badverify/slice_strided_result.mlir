// expect-error: 3:8: stablehlo.slice: result 0 (%0): type tensor<3xf32> does not match the inferred type tensor<4xf32> (StableHLO C5)
func.func @main(%a: tensor<7xf32>) -> tensor<3xf32> {
  %0 = stablehlo.slice %a [0:7:2] : (tensor<7xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
