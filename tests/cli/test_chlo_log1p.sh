#!/bin/sh
# "chlo.log1p", the name one generation of StableHLO's math tests
# (stablehlo/tests/math/log1p_complex64.mlir at openxla/stablehlo 27f35fc)
# gives the op under test, reads as stablehlo.log_plus_one, which later
# generations of the same file write (ir/ops.c). Expected values by hand:
# log(1 + 0) = 0, log(1 + 1) = ln 2 = 0.6931471805599453, log(1 - 0.5) =
# -ln 2; for complex, log(1 + (-2 + 0i)) = log(-1) = (0, pi) on the
# principal branch, pi = 3.141592653589793. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init chlo_log1p
need_plumb

cat > "$tmp/log1p.mlir" <<'EOM'
func.func @main() {
  %x = stablehlo.constant dense<[0.0, 1.0, -0.5]> : tensor<3xf64>
  %y = "chlo.log1p"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  check.expect_close_const %y, dense<[0.0, 0.6931471805599453, -0.6931471805599453]> : tensor<3xf64>
  %z = stablehlo.constant dense<[(0.0, 0.0), (-2.0, 0.0)]> : tensor<2xcomplex<f64>>
  %w = "chlo.log1p"(%z) : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  check.expect_close_const %w, dense<[(0.0, 0.0), (0.0, 3.141592653589793)]> : tensor<2xcomplex<f64>>
  func.return
}
EOM
both_pass "chlo.log1p is log(1 + x) on f64 and complex<f64>" "$tmp/log1p.mlir"
run "$PLUMB" fmt "$tmp/log1p.mlir"
if [ "$rc" = 0 ] && grep -qF "stablehlo.log_plus_one" "$tmp/out" && ! grep -qF "log1p" "$tmp/out"; then
    ok "fmt writes stablehlo.log_plus_one"
else fail "fmt writes stablehlo.log_plus_one: exit $rc"; fi
finish
