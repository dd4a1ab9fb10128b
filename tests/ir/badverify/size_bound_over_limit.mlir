// expect-error: 2:11: function @main: argument 0 (%a): type tensor<?x8192xf32, #stablehlo.bounds<1048576, ?>>: tensor of 34359738368 bytes exceeds the limit
func.func @main(%a: tensor<?x8192xf32, #stablehlo.bounds<1048576, ?>>) -> tensor<?x8192xf32, #stablehlo.bounds<1048576, ?>> {
  return %a : tensor<?x8192xf32, #stablehlo.bounds<1048576, ?>>
}
