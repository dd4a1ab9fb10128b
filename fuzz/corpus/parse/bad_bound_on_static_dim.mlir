// expect-error: 2:58: bound given for static dimension 1
func.func @main(%a: tensor<?x4xf32, #stablehlo.bounds<8, 4>>) {
  return
}
