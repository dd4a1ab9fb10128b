// expect-error: 2:28: unsupported: unranked tensor type
func.func @main(%a: tensor<*xf32>) {
  return
}
