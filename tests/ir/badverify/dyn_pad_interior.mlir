// expect-error: 4:8: stablehlo.dynamic_pad: interior_padding[0] = -1 must not be negative (StableHLO C3)
func.func @main(%a: tensor<?xf32>, %p: tensor<f32>, %l: tensor<1xi32>, %h: tensor<1xi32>) -> tensor<?xf32> {
  %i = stablehlo.constant dense<-1> : tensor<1xi32>
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
