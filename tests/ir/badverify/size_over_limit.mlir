// expect-error: 3:8: stablehlo.broadcast_in_dim: result 0 (%0): type tensor<1048576x8192xf32>: tensor of 34359738368 bytes exceeds the limit of 17179869184 bytes
func.func @main(%s: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1048576x8192xf32>
  return %s : tensor<f32>
}
