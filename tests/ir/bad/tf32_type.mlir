// expect-error: 2:30: unsupported: element type 'tf32'
func.func @main(%a: tensor<2xtf32>) {
  return
}
