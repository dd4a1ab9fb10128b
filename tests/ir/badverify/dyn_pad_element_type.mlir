// expect-error: 3:8: stablehlo.dynamic_pad: operand 1 (%p): element type f16 does not match operand 0's f32 (StableHLO C1)
func.func @main(%a: tensor<?xf32>, %p: tensor<f16>, %l: tensor<1xi32>, %h: tensor<1xi32>, %i: tensor<1xi32>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<?xf32>, tensor<f16>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
