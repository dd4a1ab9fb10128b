// expect-error: 3:8: stablehlo.bitcast_convert: result 0 (%0): type tensor<4xui32> does not match the inferred type tensor<2x2xui32>
func.func @main(%a: tensor<2xui64>) -> tensor<4xui32> {
  %0 = stablehlo.bitcast_convert %a : (tensor<2xui64>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}
