// expect-error: 6:10: stablehlo.composite: has 2 results but its decomposition @impl returns 1
func.func private @impl(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = stablehlo.composite "my.op" %a {decomposition = @impl} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %r#0 : tensor<2xf32>
}
