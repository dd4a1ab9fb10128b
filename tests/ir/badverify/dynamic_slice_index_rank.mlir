// expect-error: 3:8: stablehlo.dynamic_slice: operand 1 (%i): start index has type tensor<1xi64>, expected a 0-dimensional integer tensor
func.func @main(%a: tensor<5xf32>, %i: tensor<1xi64>) -> tensor<2xf32> {
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<5xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
