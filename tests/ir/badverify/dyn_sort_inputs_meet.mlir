// expect-error: 3:10: stablehlo.sort: result 0 (%0): type tensor<5xf32> does not match the inferred type tensor<3xf32> (StableHLO C2)
func.func @main(%a: tensor<?xf32>, %b: tensor<3xi32>) -> (tensor<5xf32>, tensor<3xi32>) {
  %0:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
    %1 = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<?xf32>, tensor<3xi32>) -> (tensor<5xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<5xf32>, tensor<3xi32>
}
