func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.subtract %a, %b : tensor<2x3xf32>
  %1 = stablehlo.divide %0, %b : tensor<2x3xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}
