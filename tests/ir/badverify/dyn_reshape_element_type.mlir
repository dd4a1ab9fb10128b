// expect-error: 3:8: stablehlo.dynamic_reshape: result element type i32 does not match the operand's f32 (StableHLO C1)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x2xi32> {
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xi32>
  return %0 : tensor<?x2xi32>
}
