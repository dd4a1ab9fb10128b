// expect-error: 3:8: stablehlo.sqrt: operand 0 (%a): element type i32 is not accepted
func.func @main(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.sqrt %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}
