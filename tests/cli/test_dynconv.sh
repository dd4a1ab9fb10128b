#!/bin/sh
# stablehlo.dynamic_conv through the plumb command: a program in
# convolution's pretty form with its padding operand, values derived by
# hand, on the reference and on the runtime; the canonical (generic) form
# StableHLO prints, which formats to itself and runs the same; a padding
# that contradicts the declared result fails on both backends with the op,
# the dimension and both sizes.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init dynconv

# 3x3 image 1..9, 2x2 kernel of ones, padding (1, 0) on rows and (0, 1) on
# columns: the padded image is
#   0 0 0 0 / 1 2 3 0 / 4 5 6 0 / 7 8 9 0
# and each 2x2 window sums four of its elements: 0+0+1+2 = 3, 0+0+2+3 = 5,
# 0+0+3+0 = 3, 1+2+4+5 = 12, 16, 9, 4+5+7+8 = 24, 28, 6+0+9+0 = 15.
cat > "$tmp/a.mlir" <<'MLIR'
func.func @main() -> tensor<1x3x3x1xi32> {
  %x = stablehlo.constant dense<[[[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]]]> : tensor<1x3x3x1xi32>
  %w = stablehlo.constant dense<1> : tensor<2x2x1x1xi32>
  %p = stablehlo.constant dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>
  %r = stablehlo.dynamic_conv(%x, %w, %p) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xi32>, tensor<2x2x1x1xi32>, tensor<2x2xi64>) -> tensor<1x3x3x1xi32>
  return %r : tensor<1x3x3x1xi32>
}
MLIR
want='tensor<1x3x3x1xi32> dense<[[[[3], [5], [3]], [[12], [16], [9]], [[24], [28], [15]]]]>'
for be in ref runtime; do
    if "$PLUMB" run --backend "$be" "$tmp/a.mlir" > "$tmp/out" 2> "$tmp/err" && [ "$(cat "$tmp/out")" = "$want" ]; then
        ok "hand-derived values on the $be"
    else
        cat "$tmp/out" >> "$tmp/err"
        fail "hand-derived values on the $be"
    fi
done

# the canonical form is StableHLO's generic form with the letters of the
# dimension numbers, and it formats to itself
if "$PLUMB" fmt "$tmp/a.mlir" > "$tmp/b.mlir" 2> "$tmp/err" &&
    grep -q '"stablehlo.dynamic_conv"(%0, %1, %2) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<\[b, 0, 1, f\]x\[0, 1, i, o\]->\[b, 0, 1, f\]>, feature_group_count = 1 : i64, window_strides = array<i64: 1, 1>}>' "$tmp/b.mlir" &&
    "$PLUMB" fmt "$tmp/b.mlir" > "$tmp/c.mlir" 2> "$tmp/err" && cmp -s "$tmp/b.mlir" "$tmp/c.mlir"; then
    ok "prints in the generic form and formats to itself"
else
    fail "prints in the generic form and formats to itself"
fi
for be in ref runtime; do
    if "$PLUMB" run --backend "$be" "$tmp/b.mlir" > "$tmp/out" 2> "$tmp/err" && [ "$(cat "$tmp/out")" = "$want" ]; then
        ok "the printed form runs the same on the $be"
    else
        fail "the printed form runs the same on the $be"
    fi
done

# padding (3, 3) on the rows: 3 + 3 + 3 - 2 + 1 = 8 rows, declared 3. The
# padding is a parameter's value here (the program keeps it from being a
# constant), so only the run can tell.
sed -e 's/func.func @main() -> tensor<1x3x3x1xi32> {/func.func @main(%q: tensor<2x2xi64>) -> tensor<1x3x3x1xi32> {/' \
    -e 's/dense<\[\[1, 0\], \[0, 1\]\]> : tensor<2x2xi64>/dense<[[2, 2], [0, 1]]> : tensor<2x2xi64>\n  %pp = stablehlo.add %p, %q : tensor<2x2xi64>/' \
    -e 's/dynamic_conv(%x, %w, %p)/dynamic_conv(%x, %w, %pp)/' "$tmp/a.mlir" > "$tmp/bad.mlir"
for be in ref runtime; do
    if "$PLUMB" run --backend "$be" "$tmp/bad.mlir" --args '[dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>]' > "$tmp/out" 2> "$tmp/err"; then
        echo "ran: $(cat "$tmp/out")" >> "$tmp/err"
        fail "a padding contradicting the result fails on the $be"
    elif grep -Eq 'stablehlo.dynamic_conv: result 0( \(%r\))? dimension 1: size 8 at run time contradicts the declared size 3' "$tmp/err"; then
        ok "a padding contradicting the result fails on the $be"
    else
        fail "a padding contradicting the result fails on the $be"
    fi
done

finish
