// optional batch fields, fixed: every field is always present with a fixed shape
// and type, and a presence flag per optional field selects it by mask (a missing
// doc_ids is all ones, a missing loss_mask all ones): one program for every batch.
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>, %has_doc_ids: tensor<i1>, %loss_mask: tensor<8xf32>, %has_loss_mask: tensor<i1>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %z = stablehlo.constant dense<0> : tensor<8xi32>
  %nz = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> loc("model.py":212:9)
  %hd = stablehlo.broadcast_in_dim %has_doc_ids, dims = [] : (tensor<i1>) -> tensor<8xi1>
  %nhd = stablehlo.not %hd : tensor<8xi1>
  %live = stablehlo.or %nz, %nhd : tensor<8xi1> loc("model.py":212:9)
  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>
  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":212:9)
  %hm = stablehlo.broadcast_in_dim %has_loss_mask, dims = [] : (tensor<i1>) -> tensor<8xi1>
  %one = stablehlo.constant dense<1.0> : tensor<8xf32>
  %mask = stablehlo.select %hm, %loss_mask, %one : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":213:9)
  %mm = stablehlo.multiply %md, %mask : tensor<8xf32> loc("model.py":213:9)
  %l = stablehlo.reduce(%mm init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
