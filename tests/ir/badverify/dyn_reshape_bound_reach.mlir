// expect-error: 3:8: stablehlo.reshape: result tensor<12xf32> has 12 elements, which no size of the '?' dimensions of operand tensor<?x4xf32, #stablehlo.bounds<2, ?>> gives (StableHLO C2)
func.func @main(%a: tensor<?x4xf32, #stablehlo.bounds<2, ?>>) -> tensor<12xf32> {
  %0 = stablehlo.reshape %a : (tensor<?x4xf32, #stablehlo.bounds<2, ?>>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}
