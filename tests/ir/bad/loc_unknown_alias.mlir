// expect-error: 3:45: unknown location alias '#loc99'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32> loc(#loc99)
  return %0 : tensor<2xf32> loc(#loc1)
}
#loc1 = loc("model.py":4:2)
