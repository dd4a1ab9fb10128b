// expect-error: 3:8: stablehlo.reduce: body returns tensor<f64> as value 0, expected tensor<f32> (StableHLO C6)
func.func @main(%a: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce(%a init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %1 = stablehlo.add %x, %y : tensor<f32>
    %2 = stablehlo.convert %1 : (tensor<f32>) -> tensor<f64>
    stablehlo.return %2 : tensor<f64>
  }
  return %0 : tensor<2xf32>
}
