// expect-error: 3:8: stablehlo.case: result 0 (%r): type tensor<f16> does not match the inferred type tensor<f32> (StableHLO C4: the results have the branches' types)
func.func @main(%k: tensor<i32>, %a: tensor<f32>) -> tensor<f16> {
  %r = "stablehlo.case"(%k) ({
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i32>) -> tensor<f16>
  return %r : tensor<f16>
}
