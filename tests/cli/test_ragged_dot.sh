#!/bin/sh
# chlo.ragged_dot (docs/spec/ragged_dot.md) through plumb run on the
# reference and the runtime, operands passed with --args so the runtime's
# kernel runs (nothing folded). Hand-derived values:
#   mode 1: rows [1,2] [3,4] [5,6] [7,8] [9,10]; rhs group 0 maps a row to
#     [x0, x1, 0], group 1 to x0 + 2 x1 in each column; sizes [2, 2]: rows
#     0-1 -> [1,2,0] [3,4,0], rows 2-3 -> 17 and 23, row 4 in no group -> 0
#   mode 2: lhs [[1,2,3,4],[5,6,7,8]], rhs row k = [1, k+1], sizes [1, 2]:
#     group 0 (k = 0) [[1,1],[5,5]], group 1 (k = 1, 2) [[5,13],[13,33]]
#   mode 3: batches [1,2] [3,4] [5,6] times [1,1] [1,2] [2,1], sizes [1, 1]:
#     3, 11 and batch 2 in no group -> 0
# Then a negative size fails the run on both backends naming the element,
# a wrong result shape is refused by the verifier, and plumb fmt's output
# formats to itself. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init ragged_dot
need_plumb
DN1='lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]'
cat > "$tmp/m1.mlir" <<MLIR
func.func @main(%l: tensor<5x2xi32>, %r: tensor<2x2x3xi32>, %g: tensor<2xi64>) -> tensor<5x3xi32> {
  %o = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<$DN1>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<5x2xi32>, tensor<2x2x3xi32>, tensor<2xi64>) -> tensor<5x3xi32>
  return %o : tensor<5x3xi32>
}
MLIR
L1='dense<[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]> : tensor<5x2xi32>'
R1='dense<[[[1, 0, 0], [0, 1, 0]], [[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3xi32>'
expect_both "mode 1 (ragged rows) gives the hand-derived rows, row 4 in no group 0" \
    'tensor<5x3xi32> dense<[[1, 2, 0], [3, 4, 0], [17, 17, 17], [23, 23, 23], [0, 0, 0]]>' \
    "$tmp/m1.mlir" --args "[$L1, $R1, dense<[2, 2]> : tensor<2xi64>]"

cat > "$tmp/m2.mlir" <<'MLIR'
func.func @main(%l: tensor<2x4xi32>, %r: tensor<4x2xi32>, %g: tensor<2xi32>) -> tensor<2x2x2xi32> {
  %o = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>} : (tensor<2x4xi32>, tensor<4x2xi32>, tensor<2xi32>) -> tensor<2x2x2xi32>
  return %o : tensor<2x2x2xi32>
}
MLIR
expect_both "mode 2 (ragged contracting) gives one hand-derived result per group" \
    'tensor<2x2x2xi32> dense<[[[1, 1], [5, 5]], [[5, 13], [13, 33]]]>' \
    "$tmp/m2.mlir" --args '[dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>, dense<[[1, 1], [1, 2], [1, 3], [1, 4]]> : tensor<4x2xi32>, dense<[1, 2]> : tensor<2xi32>]'

cat > "$tmp/m3.mlir" <<'MLIR'
func.func @main(%l: tensor<3x1x2xi32>, %r: tensor<3x2x1xi32>, %g: tensor<2xi64>) -> tensor<3x1x1xi32> {
  %o = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []>} : (tensor<3x1x2xi32>, tensor<3x2x1xi32>, tensor<2xi64>) -> tensor<3x1x1xi32>
  return %o : tensor<3x1x1xi32>
}
MLIR
expect_both "mode 3 (ragged batch) gives 3, 11 and 0 for the batch in no group" \
    'tensor<3x1x1xi32> dense<[[[3]], [[11]], [[0]]]>' \
    "$tmp/m3.mlir" --args '[dense<[[[1, 2]], [[3, 4]], [[5, 6]]]> : tensor<3x1x2xi32>, dense<[[[1], [1]], [[1], [2]], [[2], [1]]]> : tensor<3x2x1xi32>, dense<[1, 1]> : tensor<2xi64>]'

for b in ref runtime; do
    run "$PLUMB" run --backend "$b" "$tmp/m1.mlir" --args "[$L1, $R1, dense<[2, -2]> : tensor<2xi64>]"
    if [ "$rc" = 1 ] && grep -q 'group_sizes element 1 is -2; group sizes must not be negative' "$tmp/err"; then
        ok "a negative group size fails the run on $b, naming the element"
    else
        fail "a negative group size fails the run on $b, naming the element (exit $rc)"
    fi
done

sed 's/-> tensor<5x3xi32> {/-> tensor<5x2xi32> {/; s/) -> tensor<5x3xi32>$/) -> tensor<5x2xi32>/; s/return %o : tensor<5x3xi32>/return %o : tensor<5x2xi32>/' \
    "$tmp/m1.mlir" > "$tmp/bad.mlir"
expect_refused "a result shape other than the inferred one is refused" "$tmp/bad.mlir" \
    'chlo.ragged_dot: result shape \[5x2\] does not match the inferred \[5x3\]'

run "$PLUMB" fmt "$tmp/m1.mlir"
cp "$tmp/out" "$tmp/f1.mlir"
run "$PLUMB" fmt "$tmp/f1.mlir"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/f1.mlir" && grep -q '#chlo.ragged_dot<' "$tmp/f1.mlir"; then
    ok "plumb fmt prints chlo.ragged_dot in a form that formats to itself"
else
    fail "plumb fmt prints chlo.ragged_dot in a form that formats to itself"
fi
finish
