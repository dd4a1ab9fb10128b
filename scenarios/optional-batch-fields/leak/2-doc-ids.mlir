// optional batch fields: a batch that carries doc_ids (tokens of document 0 are skipped).
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %z = stablehlo.constant dense<0> : tensor<8xi32>
  %live = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> loc("model.py":212:9)
  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>
  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":212:9)
  %l = stablehlo.reduce(%md init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
