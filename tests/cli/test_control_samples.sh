#!/bin/sh
# Control flow (op set v2) through the CLI: StableHLO's interpreter sample
# optimization_barrier.mlir ($STABLEHLO_INTERPRET, else
# $SHARED/stablehlo-interpret) passes with --split-input-file on the
# reference and on the runtime, every case passed and none unsupported
# (skipped, with a hint, when the folder is absent); a barrier in the pretty
# and in the generic form formats to the same pretty text, which parses back
# to itself; a barrier whose result type differs from its operand's fails
# verification naming the constraint.
# Ends with "N passed, N failed, N skipped".
PLUMB=${PLUMB:-build/plumb}
SHARED=${SHARED:-../shared}
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
passed=0
failed=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-control.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); echo "ok - $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    sed 's/^/    /' "$tmp/out" "$tmp/err" 2> /dev/null | head -n 8
}

for name in optimization_barrier; do
    f="$IDIR/$name.mlir"
    if [ ! -f "$f" ]; then
        skipped=$((skipped + 1))
        echo "skip - $name.mlir: not found in $IDIR (set STABLEHLO_INTERPRET or SHARED)"
        continue
    fi
    n=$(grep -c '^func.func' "$f")
    for b in ref runtime; do
        "$PLUMB" run --split-input-file --backend "$b" "$f" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        if [ "$rc" = 0 ] && [ "$(tail -n 1 "$tmp/out")" = "$n passed, 0 failed, 0 unsupported" ]; then
            ok "$name.mlir: $n of $n cases pass on $b"
        else
            bad "$name.mlir on $b (exit $rc)"
        fi
    done
done

cat > "$tmp/pretty.mlir" <<'MLIR'
func.func @main(%a: tensor<2xi32>, %b: tensor<f64>) -> (tensor<2xi32>, tensor<f64>) {
  %r:2 = stablehlo.optimization_barrier %a, %b : tensor<2xi32>, tensor<f64>
  return %r#0, %r#1 : tensor<2xi32>, tensor<f64>
}
MLIR
cat > "$tmp/generic.mlir" <<'MLIR'
func.func @main(%a: tensor<2xi32>, %b: tensor<f64>) -> (tensor<2xi32>, tensor<f64>) {
  %r:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<2xi32>, tensor<f64>) -> (tensor<2xi32>, tensor<f64>)
  return %r#0, %r#1 : tensor<2xi32>, tensor<f64>
}
MLIR
want='  %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2xi32>, tensor<f64>'
"$PLUMB" fmt "$tmp/pretty.mlir" > "$tmp/p.out" 2> "$tmp/err"
"$PLUMB" fmt "$tmp/generic.mlir" > "$tmp/g.out" 2>> "$tmp/err"
cp "$tmp/g.out" "$tmp/out"
if grep -qxF -- "$want" "$tmp/p.out" && cmp -s "$tmp/p.out" "$tmp/g.out"; then
    ok "pretty and generic barriers format to the same pretty form"
else
    bad "pretty and generic barriers format to the same pretty form"
fi
"$PLUMB" fmt "$tmp/p.out" > "$tmp/out" 2> "$tmp/err"
if cmp -s "$tmp/p.out" "$tmp/out"; then ok "the pretty form formats to itself"; else bad "the pretty form formats to itself"; fi

cat > "$tmp/bad.mlir" <<'MLIR'
func.func @main(%a: tensor<2xi32>) -> tensor<2xf32> {
  %r = "stablehlo.optimization_barrier"(%a) : (tensor<2xi32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
MLIR
"$PLUMB" verify "$tmp/bad.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" != 0 ] && grep -q 'bad.mlir:2:8: error: stablehlo.optimization_barrier: result 0 (%r): .*StableHLO C1' "$tmp/err"; then
    ok "a barrier changing its operand's type fails verification (C1)"
else
    bad "a barrier changing its operand's type fails verification (C1) (exit $rc)"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
