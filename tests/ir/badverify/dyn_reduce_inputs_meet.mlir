// expect-error: 3:10: stablehlo.reduce: result 0 (%0): type tensor<2xf32> does not match the inferred type tensor<3xf32> (StableHLO C7, C8)
func.func @main(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>, %c: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %c) across dimensions = [1] : (tensor<?x4xf32>, tensor<3x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>)
   reducer(%x: tensor<f32>, %y: tensor<f32>) (%z: tensor<f32>, %w: tensor<f32>) {
    %1 = stablehlo.add %x, %y : tensor<f32>
    %2 = stablehlo.add %z, %w : tensor<f32>
    stablehlo.return %1, %2 : tensor<f32>, tensor<f32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}
