// expect-error: 3:8: stablehlo.sort: dimension = 2 is outside [-2, 2) for input rank 2 (StableHLO C4)
func.func @main(%a: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %2 = "stablehlo.sort"(%a) <{dimension = 2 : i64}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %3 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
  }) : (tensor<5x7xf32>) -> tensor<5x7xf32>
  return %2 : tensor<5x7xf32>
}
