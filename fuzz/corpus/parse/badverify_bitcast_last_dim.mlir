// expect-error: 3:8: stablehlo.bitcast_convert: bitcast from ui32 to ui64 needs the operand's last dimension to be 2, not 3 (StableHLO C1)
func.func @main(%a: tensor<2x3xui32>) -> tensor<2xui64> {
  %0 = stablehlo.bitcast_convert %a : (tensor<2x3xui32>) -> tensor<2xui64>
  return %0 : tensor<2xui64>
}
