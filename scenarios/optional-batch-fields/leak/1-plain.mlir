// optional batch fields: a batch with neither doc_ids nor loss_mask.
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %l = stablehlo.reduce(%m init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
