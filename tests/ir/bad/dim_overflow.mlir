// expect-error: 2:28: dimension '99999999999999999999' does not fit in 64 bits
func.func @main(%a: tensor<99999999999999999999xf32>) {
  return
}
