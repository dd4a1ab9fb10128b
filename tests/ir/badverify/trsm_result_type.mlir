// expect-error: 3:8: stablehlo.triangular_solve: result 0
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x3xf32> {
  %x = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return %x : tensor<3x3xf32>
}
