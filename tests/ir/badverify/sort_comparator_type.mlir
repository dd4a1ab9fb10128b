// expect-error: 3:8: stablehlo.sort: comparator returns tensor<f32> as value 0, expected tensor<i1> (StableHLO C5)
func.func @main(%a: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %2 = "stablehlo.sort"(%a) <{dimension = 0 : i64}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %3 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<f32>
      stablehlo.return %4 : tensor<f32>
  }) : (tensor<5x7xf32>) -> tensor<5x7xf32>
  return %2 : tensor<5x7xf32>
}
