// expect-error: 3:8: stablehlo.pad: result 0 (%0): type tensor<10xf32> does not match the inferred type tensor<?xf32, #stablehlo.bounds<9>> (StableHLO C4)
func.func @main(%a: tensor<?xf32, #stablehlo.bounds<4>>, %p: tensor<f32>) -> tensor<10xf32> {
  %0 = stablehlo.pad %a, %p, low = [1], high = [1], interior = [1] : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<f32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
