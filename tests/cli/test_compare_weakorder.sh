#!/bin/sh
# stablehlo.compare with comparison_type WEAKORDER (StableHLO's interpreter
# test compare.mlir): every NaN, of either sign and any payload, equals
# every other NaN and is above +inf; -0 == +0; other values compare as
# numbers. Checked for all six directions in f16, bf16, f32 and f64, as a
# sort comparator, in the canonical printer, and against the verifier
# (floats only). Also comparison_type FLOAT on complex operands, which the
# spec (compare C3) allows for EQ and NE. Every program runs on the
# reference and on the runtime.
# Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init weakorder
skipped=0

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

# Pairs (lhs, rhs), derived by hand from the rule above:
#   (+NaN, -NaN)   both NaN: equal
#   (-NaN, 1)      NaN above every number: greater
#   (-0, +0)       equal
#   (3, 3)         equal
#   (+inf, +NaN)   NaN above +inf: less
#   (-5, -inf)     greater
# EQ [T F T T F F], NE its negation, LT [F F F F T F], LE [T F T T T F],
# GT [F T F F F T], GE [T T T T F T].
# write_prog TYPE NAN NEGNAN INF NEGINF > FILE
write_prog() {
    t=$1
    cat <<EOM
func.func @main() {
  %a = stablehlo.constant dense<[$2, $3, -0.0, 3.0, $4, -5.0]> : tensor<6x$t>
  %b = stablehlo.constant dense<[$3, 1.0, 0.0, 3.0, $2, $5]> : tensor<6x$t>
  %eq = stablehlo.compare EQ, %a, %b, WEAKORDER : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %eq, dense<[true, false, true, true, false, false]> : tensor<6xi1>
  %ne = stablehlo.compare NE, %a, %b, WEAKORDER : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %ne, dense<[false, true, false, false, true, true]> : tensor<6xi1>
  %lt = stablehlo.compare LT, %a, %b, WEAKORDER : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %lt, dense<[false, false, false, false, true, false]> : tensor<6xi1>
  %le = stablehlo.compare LE, %a, %b, WEAKORDER : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %le, dense<[true, false, true, true, true, false]> : tensor<6xi1>
  %gt = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type WEAKORDER>} : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %gt, dense<[false, true, false, false, false, true]> : tensor<6xi1>
  %ge = stablehlo.compare GE, %a, %b, WEAKORDER : (tensor<6x$t>, tensor<6x$t>) -> tensor<6xi1>
  check.expect_eq_const %ge, dense<[true, true, true, true, false, true]> : tensor<6xi1>
  func.return
}
EOM
}
write_prog f16 0x7E00 0xFE01 0x7C00 0xFC00 > "$tmp/f16.mlir"
write_prog bf16 0x7FC0 0xFFC1 0x7F80 0xFF80 > "$tmp/bf16.mlir"
write_prog f32 0x7FC00000 0xFFC00001 0x7F800000 0xFF800000 > "$tmp/f32.mlir"
write_prog f64 0x7FF8000000000000 0xFFF0000000000001 0x7FF0000000000000 0xFFF0000000000000 > "$tmp/f64.mlir"

# A stable ascending sort under WEAKORDER: -inf, then -0 and +0 (equal, so
# in input order), then 1, then the two NaNs (equal, in input order).
cat > "$tmp/sort.mlir" <<'EOM'
func.func @main() {
  %k = stablehlo.constant dense<[0x7FC00000, 1.0, 0xFFC00000, 0xFF800000, -0.0, 0.0]> : tensor<6xf32>
  %i = stablehlo.iota dim = 0 : tensor<6xi32>
  %r:2 = "stablehlo.sort"(%k, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %p: tensor<i32>, %q: tensor<i32>):
    %lt = stablehlo.compare LT, %x, %y, WEAKORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  check.expect_eq_const %r#1, dense<[3, 4, 5, 1, 0, 2]> : tensor<6xi32>
  func.return
}
EOM

# Complex EQ and NE with comparison_type FLOAT: (1,2) == (1,2); a NaN part
# is never equal; (-0, 0) == (0, -0).
cat > "$tmp/complex.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<[(1.0, 2.0), (0x7FC00000, 0.0), (-0.0, 0.0)]> : tensor<3xcomplex<f32>>
  %b = stablehlo.constant dense<[(1.0, 2.0), (0x7FC00000, 0.0), (0.0, -0.0)]> : tensor<3xcomplex<f32>>
  %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  check.expect_eq_const %eq, dense<[true, false, true]> : tensor<3xi1>
  %ne = stablehlo.compare NE, %a, %b, FLOAT : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  check.expect_eq_const %ne, dense<[false, true, false]> : tensor<3xi1>
  func.return
}
EOM

for p in f16 bf16 f32 f64 sort complex; do
    for b in ref runtime; do
        if "$PLUMB" run --backend "$b" "$tmp/$p.mlir" > "$tmp/out" 2> "$tmp/err"; then
            ok "$p: every check passes on $b"
        else
            fail "$p: every check passes on $b"
        fi
    done
done

if "$PLUMB" fmt "$tmp/f32.mlir" > "$tmp/once.mlir" 2> "$tmp/err" && [ "$(grep -c ', WEAKORDER :' "$tmp/once.mlir")" = 6 ] &&
    "$PLUMB" run "$tmp/once.mlir" > "$tmp/out" 2>> "$tmp/err"; then
    ok "the canonical form prints WEAKORDER on all six compares and still passes"
else
    cp "$tmp/once.mlir" "$tmp/out" 2> /dev/null
    fail "the canonical form prints WEAKORDER on all six compares and still passes"
fi

# WEAKORDER is for floats: an integer compare with it is invalid (exit 1,
# C3 named); TOTALORDER on complex stays invalid too.
cat > "$tmp/int.mlir" <<'EOM'
func.func @main() -> tensor<2xi1> {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = stablehlo.compare LT, %a, %a, WEAKORDER : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  func.return %r : tensor<2xi1>
}
EOM
"$PLUMB" verify "$tmp/int.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "int.mlir:3:8: .*comparison_type WEAKORDER does not fit element type i32 (StableHLO C3" "$tmp/err"; then
    ok "WEAKORDER on i32 is rejected at its line, naming C3"
else
    fail "WEAKORDER on i32 is rejected at its line, naming C3 (exit $rc)"
fi
sed 's/tensor<2xi32>/tensor<2xcomplex<f32>>/g; s/\[1, 2\]/[(1.0, 0.0), (2.0, 0.0)]/; s/WEAKORDER/TOTALORDER/; s/compare LT/compare EQ/' "$tmp/int.mlir" > "$tmp/ctot.mlir"
"$PLUMB" verify "$tmp/ctot.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "comparison_type TOTALORDER does not fit element type complex<f32>" "$tmp/err"; then
    ok "TOTALORDER on complex stays invalid"
else
    fail "TOTALORDER on complex stays invalid (exit $rc)"
fi

finish
