func.func @main(%a: tensor<4x6xf32>, %b: tensor<6x3xf32>) -> (tensor<4xf32>, tensor<4x3xf32>) {
  %0 = stablehlo.exponential %a : tensor<4x6xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.dot_general %0, %b, contracting_dims = [1] x [0] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
  %3 = "stablehlo.sort"(%2) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = stablehlo.sine %1 : tensor<4xf32>
  return %4, %3 : tensor<4xf32>, tensor<4x3xf32>
}
