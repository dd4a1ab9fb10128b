// expect-error: 3:8: stablehlo.if: branch 1 returns tensor<f64> as value 0, branch 0 returns tensor<f32> (StableHLO C2)
func.func @main(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f64>) -> tensor<f32> {
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<f64>
  }) : (tensor<i1>) -> tensor<f32>
  return %r : tensor<f32>
}
