#!/bin/sh
# Batch norm (op set v2, docs/spec/batchnorm.md) through the command line:
# programs with the spec's examples of batch_norm_inference, _training and
# _grad (values from the spec, checked with check ops) run on the reference
# and on the runtime with every check passing, split with
# --split-input-file; the generic form (a hex f32 epsilon, the older
# attribute dictionary) prints in the canonical form and reads back to the
# same text; an epsilon of another type is refused naming it.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init bn

cat > "$tmp/spec.mlir" <<'EOF'
func.func @inference() {
  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>
  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %o = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %m = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %v = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %r = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.0 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2xf32>
  check.expect_eq_const %r, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf32>
  func.return
}

// -----

func.func @training() {
  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>
  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %o = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 0.0 : f32, feature_index = 2 : i64}> : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %y, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf32>
  check.expect_eq_const %m, dense<[2.0, 3.0]> : tensor<2xf32>
  check.expect_eq_const %v, dense<[1.0, 1.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @grad() {
  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>
  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %m = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %v = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %g = stablehlo.constant dense<0.1> : tensor<2x2x2xf32>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 0.0 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %gx, dense<0.0> : tensor<2x2x2xf32>
  check.expect_almost_eq_const %gs, dense<[0.0, 0.0]> : tensor<2xf32>
  check.expect_almost_eq_const %go, dense<[0.4, 0.4]> : tensor<2xf32>
  func.return
}
EOF
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" --split-input-file "$tmp/spec.mlir" > "$tmp/out" 2> "$tmp/err" &&
        grep -q "^3 passed, 0 failed" "$tmp/out"; then
        ok "the spec's three examples pass on $b"
    else
        cat "$tmp/out" >> "$tmp/err"
        fail "the spec's three examples pass on $b"
    fi
done

cat > "$tmp/hex.mlir" <<'EOF'
func.func @main(%x: tensor<4x3xbf16>, %s: tensor<3xbf16>, %o: tensor<3xbf16>) -> tensor<4x3xbf16> {
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0x3727C5AC : f32, feature_index = 1 : i64} : (tensor<4x3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<4x3xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  return %y : tensor<4x3xbf16>
}
EOF
if "$PLUMB" fmt "$tmp/hex.mlir" > "$tmp/f1" 2> "$tmp/err" && "$PLUMB" fmt "$tmp/f1" > "$tmp/f2" 2>> "$tmp/err" &&
    cmp -s "$tmp/f1" "$tmp/f2" && grep -q 'epsilon = 1.000000e-05 : f32, feature_index = 1 : i64' "$tmp/f1"; then
    ok "a hex f32 epsilon prints as 1.000000e-05 and the canonical form reads back"
else
    fail "a hex f32 epsilon prints as 1.000000e-05 and the canonical form reads back"
fi

sed 's/0x3727C5AC : f32/1.0e-05 : f64/' "$tmp/hex.mlir" > "$tmp/f64.mlir"
if "$PLUMB" verify "$tmp/f64.mlir" > "$tmp/out" 2> "$tmp/err"; then
    fail "an f64 epsilon is refused"
elif grep -q "epsilon must be an f32 attribute, found 'f64'" "$tmp/err"; then
    ok "an f64 epsilon is refused"
else
    fail "an f64 epsilon is refused"
fi

finish
