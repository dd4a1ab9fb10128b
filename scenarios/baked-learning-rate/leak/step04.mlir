// baked learning rate, step 4 of 20: the warm-up schedule's lr = 0.004 is a Python
// float traced into the SGD update as a constant, so every step is a new program.
func.func @main(%w: tensor<16xf32>, %g: tensor<16xf32>) -> tensor<16xf32> {
  %lr = stablehlo.constant dense<0.004> : tensor<f32> loc("train.py":41:10)
  %lr16 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<16xf32> loc("train.py":41:10)
  %step = stablehlo.multiply %g, %lr16 : tensor<16xf32> loc("train.py":41:10)
  %nw = stablehlo.subtract %w, %step : tensor<16xf32> loc("train.py":42:5)
  return %nw : tensor<16xf32>
}
