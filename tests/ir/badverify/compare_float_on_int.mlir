// expect-error: 3:8: stablehlo.compare: comparison_type FLOAT does not fit element type i32
func.func @main(%a: tensor<2xi32>) -> tensor<2xi1> {
  %0 = stablehlo.compare EQ, %a, %a, FLOAT : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
