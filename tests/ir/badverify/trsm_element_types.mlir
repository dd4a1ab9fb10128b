// expect-error: 3:8: stablehlo.triangular_solve: a has element type f32 but b has f64
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %x = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %x : tensor<3x2xf64>
}
