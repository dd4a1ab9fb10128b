// expect-error: 3:61: expected '->', found 'tensor'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.transpose %a, dims = [0] : (tensor<2xf32>) tensor<2xf32>
  return %0 : tensor<2xf32>
}
