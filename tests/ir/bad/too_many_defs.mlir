// expect-error: 3:3: op 'stablehlo.abs' has 1 result but 2 values are defined
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = stablehlo.abs %a : tensor<2xf32>
  return %0#0 : tensor<2xf32>
}
