// expect-error: 7:8: stablehlo.composite: operand 0 (%a) has type tensor<2xf32> but the decomposition @impl's parameter 0 has type tensor<2xf64>
func.func private @impl(%x: tensor<2xf64>) -> tensor<2xf32> {
  %c = stablehlo.convert %x : (tensor<2xf64>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.composite "my.op" %a {decomposition = @impl} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
