// expect-error: 3:8: stablehlo.add: operand 1 (%b): shape of tensor<4xf32> does not match operand 0's tensor<?xf32, #stablehlo.bounds<3>> (StableHLO C1; no implicit broadcasting)
func.func @main(%a: tensor<?xf32, #stablehlo.bounds<3>>, %b: tensor<4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %b : (tensor<?xf32, #stablehlo.bounds<3>>, tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
