// expect-error: 7:1: location alias '#loc1' is defined twice (first on line 6)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32> loc(#loc1)
  return %0 : tensor<2xf32>
}
#loc1 = loc("model.py":3:2)
#loc1 = loc("model.py":4:2)
