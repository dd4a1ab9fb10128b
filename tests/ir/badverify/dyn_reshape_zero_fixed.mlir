// expect-error: 3:8: stablehlo.reshape: result tensor<3xf32> has 3 elements, which no size of the '?' dimensions of operand tensor<?x0xf32> gives (StableHLO C2)
func.func @main(%a: tensor<?x0xf32>) -> tensor<3xf32> {
  %0 = stablehlo.reshape %a : (tensor<?x0xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
