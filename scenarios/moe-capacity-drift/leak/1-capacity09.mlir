// MoE capacity drift: capacity recomputed from the padded batch's token count is 9
// here; it is the static size of the dispatch buffer, so each value is a new program.
func.func @main(%x: tensor<16x8xf32>, %slot: tensor<16xi32>, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %pos = stablehlo.broadcast_in_dim %slot, dims = [0] : (tensor<16xi32>) -> tensor<16x9xi32>
  %cap = stablehlo.iota dim = 1 : tensor<16x9xi32> loc("moe.py":64:15)
  %hit = stablehlo.compare EQ, %pos, %cap : (tensor<16x9xi32>, tensor<16x9xi32>) -> tensor<16x9xi1> loc("moe.py":66:11)
  %mask = stablehlo.convert %hit : (tensor<16x9xi1>) -> tensor<16x9xf32>
  %buf = stablehlo.dot_general %mask, %x, contracting_dims = [0] x [0] : (tensor<16x9xf32>, tensor<16x8xf32>) -> tensor<9x8xf32> loc("moe.py":70:11)
  %y = stablehlo.dot_general %buf, %w, contracting_dims = [1] x [0] : (tensor<9x8xf32>, tensor<8x8xf32>) -> tensor<9x8xf32> loc("moe.py":72:9)
  %out = stablehlo.dot_general %mask, %y, contracting_dims = [1] x [0] : (tensor<16x9xf32>, tensor<9x8xf32>) -> tensor<16x8xf32> loc("moe.py":75:11)
  return %out : tensor<16x8xf32>
}
