// top_k, fixed: k clamped to its maximum (8) at build time; the actual k is a
// parameter and a mask keeps the first k of the 8: one program for every k.
func.func @main(%scores: tensor<16x32xf32>, %k: tensor<i32>) -> tensor<16xf32> {
  %v, %i = chlo.top_k(%scores, k = 8) : (tensor<16x32xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) loc("router.py":30:14)
  %j = stablehlo.iota dim = 1 : tensor<16x8xi32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<16x8xi32>
  %keep = stablehlo.compare LT, %j, %kb : (tensor<16x8xi32>, tensor<16x8xi32>) -> tensor<16x8xi1> loc("router.py":30:14)
  %zero = stablehlo.constant dense<0.0> : tensor<16x8xf32>
  %vk = stablehlo.select %keep, %v, %zero : (tensor<16x8xi1>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%vk init: %c0) applies stablehlo.add across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32> loc("router.py":31:9)
  return %s : tensor<16xf32>
}
