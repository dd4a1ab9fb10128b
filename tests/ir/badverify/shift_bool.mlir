// expect-error: 3:8: stablehlo.shift_left: operand 0 (%a): element type i1 is not accepted
func.func @main(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = stablehlo.shift_left %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}
