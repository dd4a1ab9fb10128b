// expect-error: 3:8: stablehlo.xor: operand 0 (%a): element type f32 is not accepted
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.xor %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
