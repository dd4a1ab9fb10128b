// grad-accumulate: later micro-steps add into the existing gradient
// (acc.grad.add_(g)): a second program, with a parameter and an add more.
func.func @main(%x: tensor<4x8xf32>, %dy: tensor<4x2xf32>, %acc: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  %sum = stablehlo.add %acc, %g : tensor<8x2xf32> loc("train.py":78:7)
  return %sum : tensor<8x2xf32>
}
