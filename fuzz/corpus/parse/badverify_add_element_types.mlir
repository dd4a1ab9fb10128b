// expect-error: 3:8: stablehlo.add: operand 1 (%b): element type f16 does not match operand 0's f32
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
