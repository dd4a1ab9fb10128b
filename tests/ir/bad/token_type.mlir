// expect-error: 2:21: unsupported: type '!stablehlo.token'
func.func @main(%a: !stablehlo.token) {
  return
}
