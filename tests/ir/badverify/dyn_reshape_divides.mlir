// expect-error: 3:8: stablehlo.reshape: operand tensor<6xf32> has 6 elements, which no size of the '?' dimensions of result tensor<?x4xf32> gives (StableHLO C2)
func.func @main(%a: tensor<6xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.reshape %a : (tensor<6xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
