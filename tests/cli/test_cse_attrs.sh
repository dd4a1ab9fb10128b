#!/bin/sh
# The runtime's common-subexpression pass merges two ops only when the
# cache key would not tell them apart (runtime/canon.c,
# rt_canon_attrs_same): two cholesky ops on one parameter that differ only
# in `lower`, and two triangular_solve ops that differ only in
# transpose_a, stay two ops. Values derived by hand:
#   chol([[4,2],[2,5]]): lower [[2,0],[1,2]], upper [[2,1],[0,2]];
#   A = [[2,0],[1,1]] lower, b = [2,3]: A x = b gives x = [1, 2],
#   A^T x = b gives x2 = 3, x1 = (2 - 3) / 2 = -0.5.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init cse

cat > "$tmp/chol.mlir" <<'EOF2'
func.func @main(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = "stablehlo.cholesky"(%a) {lower = false} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %l, %u : tensor<2x2xf32>, tensor<2x2xf32>
}
EOF2
echo 'dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf32>' > "$tmp/a.txt"
printf '%s\n%s\n' 'tensor<2x2xf32> dense<[[2.0, 0.0], [1.0, 2.0]]>' \
    'tensor<2x2xf32> dense<[[2.0, 1.0], [0.0, 2.0]]>' > "$tmp/chol.want"

cat > "$tmp/tri.mlir" <<'EOF2'
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %x = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return %x, %y : tensor<2x1xf32>, tensor<2x1xf32>
}
EOF2
echo 'dense<[[2.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>' > "$tmp/ta.txt"
echo 'dense<[[2.0], [3.0]]> : tensor<2x1xf32>' > "$tmp/tb.txt"
printf '%s\n%s\n' 'tensor<2x1xf32> dense<[[1.0], [2.0]]>' \
    'tensor<2x1xf32> dense<[[-0.5], [3.0]]>' > "$tmp/tri.want"

for be in ref runtime; do
    if "$PLUMB" run --backend $be --input a="$tmp/a.txt" "$tmp/chol.mlir" > "$tmp/out" 2>&1 &&
        cmp -s "$tmp/out" "$tmp/chol.want"; then
        ok "$be: cholesky lower and upper of one operand are two results"
    else
        fail "$be: cholesky lower and upper of one operand are two results"
    fi
    if "$PLUMB" run --backend $be --input a="$tmp/ta.txt" --input b="$tmp/tb.txt" "$tmp/tri.mlir" > "$tmp/out" 2>&1 &&
        cmp -s "$tmp/out" "$tmp/tri.want"; then
        ok "$be: triangular_solve with and without transpose_a are two results"
    else
        fail "$be: triangular_solve with and without transpose_a are two results"
    fi
done
finish
