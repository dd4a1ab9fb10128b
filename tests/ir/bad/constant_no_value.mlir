// expect-error: 3:8: op 'stablehlo.constant' needs attribute 'value'
func.func @main() -> tensor<f32> {
  %0 = "stablehlo.constant"() : () -> tensor<f32>
  return %0 : tensor<f32>
}
