// expect-error: 2:37: unsupported: tensor encoding
func.func @main(%a: tensor<4x4xf32, #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>>) {
  return
}
