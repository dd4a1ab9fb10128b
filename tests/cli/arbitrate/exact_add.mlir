// An exact op is never arbitrated: the sum of two values computed by
// stablehlo.add has one correct answer, 2^-7 + 2^-23, and the expected
// value 2^-7 is 128 ulp from it, so the check fails whatever the mode.
module @jit_main {
  func.func public @main() -> tensor<f32> {
    %a = stablehlo.constant dense<0.0078125> : tensor<f32>
    %b = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.custom_call @check.expect_close(%s, %a) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %s : tensor<f32>
  }
}
