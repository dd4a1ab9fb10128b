#!/bin/sh
# Tuples (op set v2, docs/spec/tuple.md) through the command line: the
# interpreter-style program of StableHLO's tuple test (nested tuples,
# get_tuple_element of a nested element, checked by check ops), a function
# taking and returning tuples through func.call, a while loop carrying a
# tuple, an if and a case returning one and an optimization_barrier over one all run
# on the reference and on the runtime with the same output, whose values
# are worked by hand below; tuple results print as one line and write one
# file per tensor (also under --stats); a tuple parameter and a bad index
# are refused by name.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init tuple

cat > "$tmp/interp.mlir" <<'EOF'
func.func @tuple() {
  %val0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %tmp = stablehlo.constant dense<3> : tensor<i64>
  %val1 = stablehlo.tuple %tmp : tuple<tensor<i64>>
  %operand = stablehlo.tuple %val0, %val1 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  func.return
}

// -----

func.func @get_tuple_element() {
  %val0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %tmp0 = stablehlo.constant dense<3> : tensor<i64>
  %val1 = stablehlo.tuple %tmp0 : tuple<tensor<i64>>
  %operand = stablehlo.tuple %val0, %val1 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %result0 = stablehlo.get_tuple_element %operand[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %tmp1 = stablehlo.get_tuple_element %operand[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %result1 = stablehlo.get_tuple_element %tmp1[0] : (tuple<tensor<i64>>) -> tensor<i64>
  check.expect_eq_const %result0, dense<[1.0, 2.0]> : tensor<2xf64>
  check.expect_eq_const %result1, dense<3> : tensor<i64>
  func.return
}
EOF
for b in ref runtime; do
    "$PLUMB" run --backend "$b" --split-input-file "$tmp/interp.mlir" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = 0 ] && grep -q '^2 passed, 0 failed, 0 unsupported$' "$tmp/out"; then
        ok "$b: StableHLO's tuple/get_tuple_element cases pass (2 cases)"
    else
        fail "$b: StableHLO's tuple/get_tuple_element cases pass (exit $rc: $(tail -n 1 "$tmp/out"))"
    fi
done

# @swap takes a tuple apart (pretty and generic get_tuple_element) and
# builds the swapped tuple (generic tuple); @main returns a tensor and a
# nested tuple with an empty one inside. x = [5, -7], y = 1.5: the swapped
# pair is (1.5, [5, -7]); c = b + b = [10, -14].
cat > "$tmp/call.mlir" <<'EOF'
func.func private @swap(%arg0: tuple<tensor<2xi32>, tensor<f32>>) -> tuple<tensor<f32>, tensor<2xi32>> {
  %0 = stablehlo.get_tuple_element %arg0[0] : (tuple<tensor<2xi32>, tensor<f32>>) -> tensor<2xi32>
  %1 = "stablehlo.get_tuple_element"(%arg0) {index = 1 : i32} : (tuple<tensor<2xi32>, tensor<f32>>) -> tensor<f32>
  %2 = "stablehlo.tuple"(%1, %0) : (tensor<f32>, tensor<2xi32>) -> tuple<tensor<f32>, tensor<2xi32>>
  return %2 : tuple<tensor<f32>, tensor<2xi32>>
}
func.func @main(%x: tensor<2xi32>, %y: tensor<f32>) -> (tensor<2xi32>, tuple<tensor<f32>, tuple<tensor<2xi32>>, tuple<>>) {
  %t = stablehlo.tuple %x, %y : tuple<tensor<2xi32>, tensor<f32>>
  %s = func.call @swap(%t) : (tuple<tensor<2xi32>, tensor<f32>>) -> tuple<tensor<f32>, tensor<2xi32>>
  %a = stablehlo.get_tuple_element %s[0] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<f32>
  %b = stablehlo.get_tuple_element %s[1] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<2xi32>
  %c = stablehlo.add %b, %b : tensor<2xi32>
  %i = stablehlo.tuple %c : tuple<tensor<2xi32>>
  %e = stablehlo.tuple : tuple<>
  %r = stablehlo.tuple %a, %i, %e : tuple<tensor<f32>, tuple<tensor<2xi32>>, tuple<>>
  return %x, %r : tensor<2xi32>, tuple<tensor<f32>, tuple<tensor<2xi32>>, tuple<>>
}
EOF
printf '%s\n' 'tensor<2xi32> dense<[5, -7]>' \
    'tuple<tensor<f32>, tuple<tensor<2xi32>>, tuple<>> (dense<1.5>, (dense<[10, -14]>), ())' > "$tmp/call.want"
for b in ref runtime; do
    rm -rf "$tmp/od"
    "$PLUMB" run --backend "$b" --input 'x=dense<[5, -7]> : tensor<2xi32>' --input 'y=dense<1.5> : tensor<f32>' \
        --output-dir "$tmp/od" "$tmp/call.mlir" > "$tmp/out" 2> "$tmp/err"
    if cmp -s "$tmp/out" "$tmp/call.want"; then ok "$b: tuples through func.call, nested and empty tuple results"
    else fail "$b: tuples through func.call (got: $(cat "$tmp/out"))"; fi
    if [ -f "$tmp/od/result_0.tensor" ] && [ -f "$tmp/od/result_1.0.tensor" ] && [ -f "$tmp/od/result_1.1.tensor" ] &&
        [ ! -f "$tmp/od/result_1.2.tensor" ]; then
        "$PLUMB" run --input "x=$tmp/od/result_1.1.tensor" --input 'y=dense<0.0> : tensor<f32>' "$tmp/call.mlir" > "$tmp/o2" 2> "$tmp/err"
        if head -n 1 "$tmp/o2" | grep -q -x 'tensor<2xi32> dense<\[10, -14\]>'; then
            ok "$b: --output-dir writes one file per tensor of a tuple (result_1.1 holds [10, -14])"
        else fail "$b: result_1.1.tensor holds [10, -14] (got $(head -n 1 "$tmp/o2"))"; fi
    else
        fail "$b: --output-dir writes result_0, result_1.0 and result_1.1 (found: $(ls "$tmp/od" 2>/dev/null | tr '\n' ' '))"
    fi
done

# while carrying tuple(i, p) from (0, 1): i += 1, p += p while i < n;
# n = 5 ends at i = 5, p = 2^5 = 32. The optimization_barrier passes it on.
cat > "$tmp/while.mlir" <<'EOF'
func.func @main(%n: tensor<i32>) -> tuple<tensor<i32>, tensor<i32>> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %t0 = stablehlo.tuple %z, %one : tuple<tensor<i32>, tensor<i32>>
  %r = stablehlo.while(%it = %t0) : tuple<tensor<i32>, tensor<i32>>
    cond {
      %i = stablehlo.get_tuple_element %it[0] : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
      %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %i = stablehlo.get_tuple_element %it[0] : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
      %p = stablehlo.get_tuple_element %it[1] : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %p2 = stablehlo.add %p, %p : tensor<i32>
      %t = stablehlo.tuple %i1, %p2 : tuple<tensor<i32>, tensor<i32>>
      stablehlo.return %t : tuple<tensor<i32>, tensor<i32>>
    }
  %b = stablehlo.optimization_barrier %r : tuple<tensor<i32>, tensor<i32>>
  return %b : tuple<tensor<i32>, tensor<i32>>
}
EOF
for b in ref runtime; do
    "$PLUMB" run --backend "$b" --input 'n=dense<5> : tensor<i32>' "$tmp/while.mlir" > "$tmp/out" 2> "$tmp/err"
    if grep -q -x 'tuple<tensor<i32>, tensor<i32>> (dense<5>, dense<32>)' "$tmp/out"; then
        ok "$b: while and optimization_barrier carry a tuple (5, 32)"
    else fail "$b: while carries a tuple (got: $(cat "$tmp/out"))"; fi
done

# The session path (--stats) prints the same tuple line as a plain run.
printf '%s\n' 'dense<5> : tensor<i32>' > "$tmp/n.txt"
"$PLUMB" run --stats --backend runtime --input "n=$tmp/n.txt" "$tmp/while.mlir" > "$tmp/out" 2> "$tmp/err"
if grep -q -x 'tuple<tensor<i32>, tensor<i32>> (dense<5>, dense<32>)' "$tmp/out"; then
    ok "run --stats prints a tuple result on one line"
else fail "run --stats prints a tuple result on one line (got: $(cat "$tmp/out"))"; fi

# if returns tuple(x, -x) or tuple(-x, x); the difference of the elements
# is 2x = [3, -8] when p is true, -2x = [-3, 8] when false.
cat > "$tmp/if.mlir" <<'EOF'
func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %n = stablehlo.negate %x : tensor<2xf32>
  %r = "stablehlo.if"(%p) ({
    %t = stablehlo.tuple %x, %n : tuple<tensor<2xf32>, tensor<2xf32>>
    stablehlo.return %t : tuple<tensor<2xf32>, tensor<2xf32>>
  }, {
    %t = stablehlo.tuple %n, %x : tuple<tensor<2xf32>, tensor<2xf32>>
    stablehlo.return %t : tuple<tensor<2xf32>, tensor<2xf32>>
  }) : (tensor<i1>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %a = stablehlo.get_tuple_element %r[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %b = stablehlo.get_tuple_element %r[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %s = stablehlo.subtract %a, %b : tensor<2xf32>
  return %s : tensor<2xf32>
}
EOF
for b in ref runtime; do
    for pv in true false; do
        "$PLUMB" run --backend "$b" --input "p=dense<$pv> : tensor<i1>" --input 'x=dense<[1.5, -4.0]> : tensor<2xf32>' \
            "$tmp/if.mlir" > "$tmp/out" 2> "$tmp/err"
        if [ "$pv" = true ]; then want='tensor<2xf32> dense<[3.0, -8.0]>'; else want='tensor<2xf32> dense<[-3.0, 8.0]>'; fi
        if grep -q -x -F "$want" "$tmp/out"; then ok "$b: if returns a tuple (p = $pv)"
        else fail "$b: if returns a tuple (p = $pv; got: $(cat "$tmp/out"))"; fi
    done
done

# case returns tuple(x, ()) from branch 0 and tuple(-x, ()) from branch 1,
# which an out-of-range index (7) also runs (the last branch):
# -[1, -2, 127] = [-1, 2, -127] in i8.
cat > "$tmp/case.mlir" <<'EOF'
func.func @main(%i: tensor<i32>, %x: tensor<3xi8>) -> tuple<tensor<3xi8>, tuple<>> {
  %e = stablehlo.tuple : tuple<>
  %r = "stablehlo.case"(%i) ({
    %t = stablehlo.tuple %x, %e : tuple<tensor<3xi8>, tuple<>>
    stablehlo.return %t : tuple<tensor<3xi8>, tuple<>>
  }, {
    %n = stablehlo.negate %x : tensor<3xi8>
    %t = stablehlo.tuple %n, %e : tuple<tensor<3xi8>, tuple<>>
    stablehlo.return %t : tuple<tensor<3xi8>, tuple<>>
  }) : (tensor<i32>) -> tuple<tensor<3xi8>, tuple<>>
  return %r : tuple<tensor<3xi8>, tuple<>>
}
EOF
for b in ref runtime; do
    for i in 0 1 7; do
        "$PLUMB" run --backend "$b" --input "i=dense<$i> : tensor<i32>" --input 'x=dense<[1, -2, 127]> : tensor<3xi8>' \
            "$tmp/case.mlir" > "$tmp/out" 2> "$tmp/err"
        if [ "$i" = 0 ]; then v='[1, -2, 127]'; else v='[-1, 2, -127]'; fi
        if grep -q -x -F "tuple<tensor<3xi8>, tuple<>> (dense<$v>, ())" "$tmp/out"; then ok "$b: case returns a tuple (index $i)"
        else fail "$b: case returns a tuple (index $i; got: $(cat "$tmp/out"))"; fi
    done
done

# fmt prints the generic forms in the pretty form and reads back the same.
"$PLUMB" fmt "$tmp/call.mlir" > "$tmp/f1.mlir" 2> "$tmp/err" && "$PLUMB" fmt "$tmp/f1.mlir" > "$tmp/f2.mlir" 2>> "$tmp/err"
if cmp -s "$tmp/f1.mlir" "$tmp/f2.mlir" && grep -q 'stablehlo.get_tuple_element %arg0\[1\] : (tuple<tensor<2xi32>, tensor<f32>>) -> tensor<f32>' "$tmp/f1.mlir" &&
    grep -q 'stablehlo.tuple %1, %0 : tuple<tensor<f32>, tensor<2xi32>>' "$tmp/f1.mlir"; then
    ok "fmt: generic tuple forms print pretty and round-trip"
else fail "fmt: generic tuple forms print pretty and round-trip"; fi

# A tuple parameter is refused by name (exit 2); a bad index by the verifier (exit 1).
cat > "$tmp/param.mlir" <<'EOF'
func.func @main(%pair: tuple<tensor<f32>>) -> tuple<tensor<f32>> {
  return %pair : tuple<tensor<f32>>
}
EOF
"$PLUMB" run --input 'pair=dense<1.0> : tensor<f32>' "$tmp/param.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'parameter %pair (index 0) of @main has a tuple type' "$tmp/err"; then
    ok "run refuses a tuple parameter, naming it"
else fail "run refuses a tuple parameter, naming it (exit $rc)"; fi
cat > "$tmp/index.mlir" <<'EOF'
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %t = stablehlo.tuple %x : tuple<tensor<f32>>
  %a = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>
  return %a : tensor<f32>
}
EOF
"$PLUMB" verify "$tmp/index.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'index.mlir:3:8: error: stablehlo.get_tuple_element: index 1 is out of range for operand 0 (%t) of 1 elements (StableHLO C1' "$tmp/err"; then
    ok "verify refuses an out-of-range index (C1), naming op, operand and index"
else fail "verify refuses an out-of-range index (exit $rc)"; fi

finish
