// expect-error: 6:8: stablehlo.dynamic_pad: result dimension 0 is declared 7 but the padding on dimension 0 gives 8 (StableHLO C4)
func.func @main(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<7xf32> {
  %l = stablehlo.constant dense<1> : tensor<1xi32>
  %h = stablehlo.constant dense<2> : tensor<1xi32>
  %i = stablehlo.constant dense<1> : tensor<1xi32>
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<3xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
