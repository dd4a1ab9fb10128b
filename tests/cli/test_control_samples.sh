#!/bin/sh
# Control flow (op set v2) through the CLI: StableHLO's interpreter samples
# optimization_barrier.mlir and while.mlir ($STABLEHLO_INTERPRET, else
# $SHARED/stablehlo-interpret) pass with --split-input-file on the
# reference and on the runtime, every case passed and none unsupported
# (skipped, with a hint, when the folder is absent); a barrier in the pretty
# and in the generic form formats to the same pretty text, which parses back
# to itself; a nested while in the generic form formats to the pretty form
# and runs on both backends; a barrier whose result type differs from its
# operand's fails verification naming the constraint.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
. "$(dirname "$0")/lib.sh"
lib_init control
skipped=0

for name in optimization_barrier while; do
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
            fail "$name.mlir on $b (exit $rc)"
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
    fail "pretty and generic barriers format to the same pretty form"
fi
"$PLUMB" fmt "$tmp/p.out" > "$tmp/out" 2> "$tmp/err"
if cmp -s "$tmp/p.out" "$tmp/out"; then ok "the pretty form formats to itself"; else fail "the pretty form formats to itself"; fi

# A while (nested, capturing values of the function and of the outer body):
# the generic form formats to the pretty form, which formats to itself and
# runs to the hand-derived counts (4 outer iterations, 0+1+2+3 = 6 inner).
cat > "$tmp/while.mlir" <<'MLIR'
func.func @main() -> (tensor<i32>, tensor<i32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %four = stablehlo.constant dense<4> : tensor<i32>
  %r:2 = "stablehlo.while"(%z, %z) ({
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    %j, %c2 = stablehlo.while(%b = %z, %d = %c) : tensor<i32>, tensor<i32>
    cond {
      %lt2 = stablehlo.compare LT, %b, %a : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt2 : tensor<i1>
    } do {
      %b1 = stablehlo.add %b, %one : tensor<i32>
      %d1 = stablehlo.add %d, %one : tensor<i32>
      stablehlo.return %b1, %d1 : tensor<i32>, tensor<i32>
    }
    %a1 = stablehlo.add %a, %one : tensor<i32>
    stablehlo.return %a1, %c2 : tensor<i32>, tensor<i32>
  }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  return %r#0, %r#1 : tensor<i32>, tensor<i32>
}
MLIR
"$PLUMB" fmt "$tmp/while.mlir" > "$tmp/w1.mlir" 2> "$tmp/err"
"$PLUMB" fmt "$tmp/w1.mlir" > "$tmp/out" 2>> "$tmp/err"
if grep -q '^  %3:2 = stablehlo.while(%arg0 = %0, %arg1 = %0) : tensor<i32>, tensor<i32>$' "$tmp/w1.mlir" &&
   grep -qx '  cond {' "$tmp/w1.mlir" && grep -qx '  } do {' "$tmp/w1.mlir" && cmp -s "$tmp/w1.mlir" "$tmp/out"; then
    ok "a generic while formats to the pretty form, a fixed point"
else
    fail "a generic while formats to the pretty form, a fixed point"
fi
for b in ref runtime; do
    "$PLUMB" run --backend "$b" "$tmp/w1.mlir" > "$tmp/out" 2> "$tmp/err"
    if [ "$(tr '\n' ' ' < "$tmp/out")" = "tensor<i32> dense<4> tensor<i32> dense<6> " ]; then
        ok "nested while on $b: 4 and 6"
    else
        fail "nested while on $b: 4 and 6"
    fi
done

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
    fail "a barrier changing its operand's type fails verification (C1) (exit $rc)"
fi

finish
