// expect-error: 3:8: stablehlo.if: pred has type tensor<i32>, expected tensor<i1>
func.func @main(%p: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %r : tensor<f32>
}
