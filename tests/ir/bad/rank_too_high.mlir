// expect-error: 2:60: unsupported: tensor rank above 16
func.func @main(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  return
}
