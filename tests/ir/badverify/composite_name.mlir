// expect-error: 6:8: stablehlo.composite: name "myop" is not a namespaced op name such as "mylib.op" (StableHLO C1)
func.func private @impl(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.composite "myop" %a {decomposition = @impl} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
