// expect-error: 3:8: stablehlo.add: operand 1 (%b): shape of tensor<3x4xf32> does not match operand 0's tensor<1x4xf32> (StableHLO C1; no implicit broadcasting)
func.func @main(%a: tensor<1x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.add %a, %b : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
