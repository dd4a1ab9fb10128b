// expect-error: 6:8: stablehlo.composite: composite_attributes = 3 : i64 is not a dictionary {...} (StableHLO C2)
func.func private @impl(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.composite"(%a) <{composite_attributes = 3 : i64, decomposition = @impl, name = "my.op"}> : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
