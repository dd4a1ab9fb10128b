// grad-create: the first micro-step after zero_grad(set_to_none=True) has no
// gradient yet and returns the new one (acc.grad = g).
func.func @main(%x: tensor<4x8xf32>, %dy: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  return %g : tensor<8x2xf32>
}
