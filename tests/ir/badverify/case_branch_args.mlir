// expect-error: 3:8: stablehlo.case: branch 0 takes 1 arguments; branches take none (StableHLO C2)
func.func @main(%k: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.case"(%k) ({
  ^bb0(%x: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %r : tensor<f32>
}
