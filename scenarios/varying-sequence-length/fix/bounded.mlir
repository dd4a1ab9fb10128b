// varying sequence length, fixed: the length is a bounded '?' dimension (at most
// 64 tokens); the runtime compiles it once and runs every length up to the bound.
func.func @main(%x: tensor<?x16xf32, #stablehlo.bounds<64, ?>>, %w: tensor<16x16xf32>) -> tensor<16xf32> {
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32, #stablehlo.bounds<64, ?>>, tensor<16x16xf32>) -> tensor<?x16xf32, #stablehlo.bounds<64, ?>> loc("encoder.py":52:9)
  %a = stablehlo.tanh %h : tensor<?x16xf32, #stablehlo.bounds<64, ?>>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<?x16xf32, #stablehlo.bounds<64, ?>>, tensor<f32>) -> tensor<16xf32> loc("encoder.py":55:9)
  return %s : tensor<16xf32>
}
