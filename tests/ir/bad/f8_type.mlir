// expect-error: 2:30: unsupported: element type 'f8E4M3FN'
func.func @main(%a: tensor<2xf8E4M3FN>) {
  return
}
