// expect-error: 3:8: stablehlo.map: takes at least one input (StableHLO C2: 0 < size(inputs))
func.func @main() -> tensor<f32> {
  %r = "stablehlo.map"() ({
  ^bb0:
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {dimensions = array<i64>} : () -> tensor<f32>
  return %r : tensor<f32>
}
