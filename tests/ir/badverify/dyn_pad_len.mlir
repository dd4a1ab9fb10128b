// expect-error: 3:8: stablehlo.dynamic_pad: operand 3 (%h): edge_padding_high has 2 entries, expected 1 (the operand's rank) (StableHLO C2)
func.func @main(%a: tensor<?xf32>, %p: tensor<f32>, %l: tensor<1xi32>, %h: tensor<2xi32>, %i: tensor<1xi32>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
