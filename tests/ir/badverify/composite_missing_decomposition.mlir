// expect-error: 3:8: stablehlo.composite: decomposition @nope is not a function of this module (StableHLO C3)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.composite "my.op" %a {decomposition = @nope} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
