// expect-error: 3:80: dot algorithm lacks the field 'rhs_precision_type'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = f32> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  return %a : tensor<2xf32>
}
