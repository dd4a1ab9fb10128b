// expect-error: 3:8: stablehlo.convert: result 0 (%0): type tensor<5xf16> does not match the inferred type tensor<4xf16>
func.func @main(%a: tensor<4xf32>) -> tensor<5xf16> {
  %0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}
