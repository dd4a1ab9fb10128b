// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: result element type f16 does not match the operand's f32 (StableHLO C1)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf16> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf16>
  return %0 : tensor<?x4xf16>
}
