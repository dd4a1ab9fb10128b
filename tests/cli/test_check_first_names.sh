#!/bin/sh
# `check.eq %x, dense<...> : T` and `check.almost_eq %x, dense<...> : T`,
# the check dialect's first names, which the older generation of StableHLO's
# interpreter tests (stablehlo/tests/interpret_*.mlir, RUN by
# stablehlo-interpreter) writes: the same operand, constant and form as
# check.expect_eq_const and check.expect_almost_eq_const (tolerance 1e-4,
# docs/spec/checks.md), which they were renamed to. Every verdict below is
# worked out by hand from that rule; each program runs on the reference and
# on the runtime. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init check_first_names
need_plumb

# All hold: 7 & 12 = 4 (0111 & 1100 = 0100) and -8 & -1 = -8 in i4; |-2.5|
# is 2.5 and 2.50009 (f32 2.5000901222229004) is 9.0e-5 away; |3 + 4i| = 5
# exactly; i1 false and true as written.
cat > "$tmp/pass.mlir" <<'EOM'
func.func @holds() {
  %a = stablehlo.constant dense<[7, -8]> : tensor<2xi4>
  %b = stablehlo.constant dense<[-4, -1]> : tensor<2xi4>
  %c = stablehlo.and %a, %b : tensor<2xi4>
  check.eq %c, dense<[4, -8]> : tensor<2xi4>
  %f = stablehlo.constant dense<[-2.5, 0.0]> : tensor<2xf32>
  %g = stablehlo.abs %f : tensor<2xf32>
  check.almost_eq %g, dense<[2.50009, 0.0]> : tensor<2xf32>
  %z = stablehlo.constant dense<(3.0, 4.0)> : tensor<complex<f64>>
  %m = "stablehlo.abs"(%z) : (tensor<complex<f64>>) -> tensor<f64>
  check.almost_eq %m, dense<5.0> : tensor<f64>
  %t = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  check.eq %t, dense<[false, true]> : tensor<2xi1>
  func.return
}
EOM
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" "$tmp/pass.mlir"
    if [ "$rc" = 0 ]; then ok "check.eq and check.almost_eq that hold pass (i4, f32, complex abs, i1) ($be)"
    else fail "check.eq and check.almost_eq that hold pass ($be): exit $rc"; fi
done

# i64: 2 + 3 is 5, not 6; exact, so one element differs
cat > "$tmp/eq_fails.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %c = stablehlo.add %a, %b : tensor<2xi64>
  check.eq %c, dense<[5, 7]> : tensor<2xi64>
  func.return
}
EOM
expect_fail "check.eq: 2 + 3 = 5 holds, 2 + 4 = 6 against 7 fails" "$tmp/eq_fails.mlir" "1 of 2 elements differ"
# f32: 1.00011 (f32 1.0001100301742554) is 1.1e-4 from 1: over the tolerance
cat > "$tmp/almost_fails.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  check.almost_eq %a, dense<1.00011> : tensor<f32>
  func.return
}
EOM
expect_fail "check.almost_eq: 1 against 1.00011 is over the 1e-4 tolerance" "$tmp/almost_fails.mlir" "check failed"
# the constant's type must be the operand's, as for expect_eq_const
cat > "$tmp/bad_type.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.eq %a, dense<[1, 2]> : tensor<2xi64>
  func.return
}
EOM
run "$PLUMB" verify "$tmp/bad_type.mlir"
if [ "$rc" = 1 ] && grep -q 'error' "$tmp/err"; then ok "check.eq with a constant of another type is refused"
else fail "check.eq with a constant of another type is refused: exit $rc"; fi

# The canonical printer writes the current names; that form runs the same.
run "$PLUMB" fmt "$tmp/pass.mlir"
if [ "$rc" = 0 ] && [ "$(grep -c 'check.expect_eq_const' "$tmp/out")" = 2 ] &&
    [ "$(grep -c 'check.expect_almost_eq_const' "$tmp/out")" = 2 ] && ! grep -q 'check\.eq\|check\.almost_eq' "$tmp/out"
then ok "fmt writes check.eq as expect_eq_const and check.almost_eq as expect_almost_eq_const"
else fail "fmt writes check.eq as expect_eq_const and check.almost_eq as expect_almost_eq_const"; fi
cp "$tmp/out" "$tmp/once.mlir"
run "$PLUMB" run "$tmp/once.mlir"
[ "$rc" = 0 ] && ok "the canonical form passes" || fail "the canonical form passes: exit $rc"

# A split file in the older generation's form, as interpret_and.mlir is
# written: each case passes, one verdict per case.
cat > "$tmp/split.mlir" <<'EOM'
// RUN: stablehlo-interpreter --interpret -split-input-file %s

func.func @and_ui8() {
  %0 = stablehlo.constant dense<[0, 127, 255]> : tensor<3xui8>
  %1 = stablehlo.constant dense<[255, 15, 240]> : tensor<3xui8>
  %2 = stablehlo.and %0, %1 : tensor<3xui8>
  check.eq %2, dense<[0, 15, 240]> : tensor<3xui8>
  func.return
}

// -----

func.func @sub_f64() {
  %0 = stablehlo.constant dense<[0.5, -1.25]> : tensor<2xf64>
  %1 = stablehlo.subtract %0, %0 : tensor<2xf64>
  check.almost_eq %1, dense<[0.0, 0.0]> : tensor<2xf64>
  func.return
}
EOM
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" --split-input-file "$tmp/split.mlir"
    if [ "$rc" = 0 ] && grep -q '2 passed, 0 failed' "$tmp/out" "$tmp/err"; then ok "a split file of the older form: 2 cases pass ($be)"
    else fail "a split file of the older form: 2 cases pass ($be): exit $rc"; fi
done
finish
