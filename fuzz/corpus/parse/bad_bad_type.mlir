// expect-error: 3:31: expected a tensor type, found 'tensr'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensr<2xf32>
  return %0 : tensor<2xf32>
}
