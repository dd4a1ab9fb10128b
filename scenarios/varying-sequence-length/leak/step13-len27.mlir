// varying sequence length, step 13 of 20: this batch has 27 tokens, a static
// dimension, so each new length is a new program.
func.func @main(%x: tensor<27x16xf32>, %w: tensor<16x16xf32>) -> tensor<16xf32> {
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<27x16xf32>, tensor<16x16xf32>) -> tensor<27x16xf32> loc("encoder.py":52:9)
  %a = stablehlo.tanh %h : tensor<27x16xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<27x16xf32>, tensor<f32>) -> tensor<16xf32> loc("encoder.py":55:9)
  return %s : tensor<16xf32>
}
