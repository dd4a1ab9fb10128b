// expect-error: 3:8: stablehlo.subtract: result 0 (%0): type tensor<5xi32> does not match the inferred type tensor<4xi32>
func.func @main(%a: tensor<4xi32>) -> tensor<5xi32> {
  %0 = stablehlo.subtract %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
