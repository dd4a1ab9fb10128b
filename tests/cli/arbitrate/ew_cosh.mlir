// An elementwise op of the ULP class is arbitrated against its correctly
// rounded result: cosh(0x4112A2B9 = 9.16472721...) is 4777.05745811...,
// which rounds in f32 to 0x45954876 (mpmath at 400 bits; the double cosh
// gives 4777.057458119692, far from a midpoint). The expected value
// 0x4595487A is 4 ulp above it and expect_close allows 3, so the check
// fails as written; the backend's value is 0 ulp (reference) or within
// chlo.cosh's bound (runtime) from the exact one, and wins.
module @jit_main {
  func.func public @main() -> tensor<f32> {
    %x = stablehlo.constant dense<0x4112A2B9> : tensor<f32>
    %want = stablehlo.constant dense<0x4595487A> : tensor<f32>
    %c = chlo.cosh %x : tensor<f32> -> tensor<f32>
    stablehlo.custom_call @check.expect_close(%c, %want) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %c : tensor<f32>
  }
}
