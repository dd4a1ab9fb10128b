// expect-error: 3:45: unterminated string
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32> loc("model.py:3:2)
  return %0 : tensor<2xf32>
}
