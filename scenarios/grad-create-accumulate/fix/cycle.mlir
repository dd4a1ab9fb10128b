// grad-create and grad-accumulate, fixed: one compile around the whole
// accumulation cycle (4 micro-batches), so create and accumulate are one program.
func.func @main(%x: tensor<4x4x8xf32>, %dy: tensor<4x4x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0, 1] x [0, 1] : (tensor<4x4x8xf32>, tensor<4x4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  return %g : tensor<8x2xf32>
}
