// baked learning rate, fixed: lr is a parameter (a 0-d tensor the scheduler
// writes each step), so all 20 steps are one program.
func.func @main(%w: tensor<16xf32>, %g: tensor<16xf32>, %lr: tensor<f32>) -> tensor<16xf32> {
  %lr16 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<16xf32> loc("train.py":41:10)
  %step = stablehlo.multiply %g, %lr16 : tensor<16xf32> loc("train.py":41:10)
  %nw = stablehlo.subtract %w, %step : tensor<16xf32> loc("train.py":42:5)
  return %nw : tensor<16xf32>
}
