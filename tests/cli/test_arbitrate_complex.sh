#!/bin/sh
# Arbitration of complex dot_general values (docs/spec/checks.md
# "Arbitration"): each component of a complex dot is a sum of 2k products,
# arbitrated in the per-component view the complex check compares.
# tests/cli/arbitrate/dot_general_c64_cancel.mlir (expected values derived
# by hand in its header: the left-to-right f32 accumulation, 128 ulp from the
# exact result in both components) passes on both backends with a note
# naming both components; --no-arbitrate makes it fail as written; an exact
# complex op's failing check (add) fails whatever the mode.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init arbc
need_plumb
FIX=$(cd "$(dirname "$0")" && pwd)/arbitrate

f=$FIX/dot_general_c64_cancel.mlir
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$f"
    expect_rc "$be: the complex dot passes by arbitration" 0
    expect_err "$be: the note counts both components" \
        "note: check.expect_close: arbitration accepted 2 of 2 elements of the value of stablehlo.dot_general at 13:10"
    run "$PLUMB" run --backend $be --no-arbitrate "$f"
    expect_rc "$be: --no-arbitrate: the check fails as written" 1
done
run "$PLUMB" run "$f"
expect_err "the real part is named, with both distances" \
    "at [0, 0, 0]: got 0.007812619 (0x3C000080), expected 0.0078125 (0x3C000000): expected value is 128 ulp from the exact result, which this backend returns (correctly rounded)"
expect_err "the imaginary part is named too" \
    "at [0, 0, 1]: got 0.007812619 (0x3C000080), expected 0.0078125 (0x3C000000)"
if grep -q '^tensor<1x1xcomplex<f32>> dense<(0.007812619,0.007812619)>$' "$tmp/out"; then
    ok "the result printed is the correctly rounded one"
else
    fail "the result printed is the correctly rounded one"
fi

# An exact op is never arbitrated: (1 + 2^-24) rounds to 1 in f32, and an
# expected value one ulp above it fails on both backends in both modes.
cat > "$tmp/add.mlir" <<'EOF'
func.func @main() {
  %a = stablehlo.constant dense<[(1.0, 1.0)]> : tensor<1xcomplex<f32>>
  %b = stablehlo.constant dense<[(5.96046448E-8, 5.96046448E-8)]> : tensor<1xcomplex<f32>>
  %c = stablehlo.add %a, %b : tensor<1xcomplex<f32>>
  check.expect_eq_const %c, dense<[(1.00000012, 1.0)]> : tensor<1xcomplex<f32>>
  func.return
}
EOF
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$tmp/add.mlir"
    expect_rc "$be: a wrong expected value of a complex add fails" 1
done
finish
