// expect-error: 3:48: expected a format 'eXmY', found 'f16'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce_precision %a, format = f16 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
