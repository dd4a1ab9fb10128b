// expect-error: 3:8: stablehlo.pad: result 0 (%0): type tensor<6x4xui8> does not match the inferred type tensor<7x4xui8> (StableHLO C4)
func.func @main(%a: tensor<2x3xui8>, %p: tensor<ui8>) -> tensor<6x4xui8> {
  %0 = stablehlo.pad %a, %p, low = [1, 0], high = [3, 1], interior = [1, 0] : (tensor<2x3xui8>, tensor<ui8>) -> tensor<6x4xui8>
  return %0 : tensor<6x4xui8>
}
