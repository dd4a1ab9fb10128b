#!/bin/sh
# plumb explain A B: the compile cache's view of two programs. A baked
# constant and a retyped parameter are both named, grouped by cause, with
# node, old and new value and B's line:col (all derived by hand from the
# programs below); the same program written with other value names and
# spacing is a cache hit; --entry picks the function compared; --json
# carries the runtime's explanation object; a missing entry, an invalid
# program and a wrong argument count are errors. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init explain

has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "$3 ('$2' in $(basename "$1"))"; else ok "$3"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# Canonical nodes: 0 func.func, 1 constant, 2 multiply, 3 convert, 4 add,
# 5 return. The multiply is on line 3 at column 8, @main at line 1 column 11.
cat > "$tmp/a.mlir" <<'EOF'
func.func @main(%x: tensor<4xf32>, %n: tensor<4xi32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<4xf32>
  %y = stablehlo.multiply %x, %c : tensor<4xf32>
  %f = stablehlo.convert %n : (tensor<4xi32>) -> tensor<4xf32>
  %z = stablehlo.add %y, %f : tensor<4xf32>
  return %z : tensor<4xf32>
}
EOF
# B: the constant 2.0 -> 3.0 (a baked value), %n i32 -> i64 (a parameter type)
sed -e 's/2\.0/3.0/' -e 's/i32/i64/g' "$tmp/a.mlir" > "$tmp/b.mlir"
# C: only the constant
sed -e 's/2\.0/3.0/' "$tmp/a.mlir" > "$tmp/c.mlir"
# D: A with other value names, spacing and a comment
cat > "$tmp/d.mlir" <<'EOF'
// the same program
func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %p = stablehlo.multiply %a,   %two : tensor<4xf32>
  %q = stablehlo.convert %b : (tensor<4xi32>) -> tensor<4xf32>
  %r = stablehlo.add %p, %q : tensor<4xf32>
  return %r : tensor<4xf32>
}
EOF

run "$PLUMB" explain "$tmp/a.mlir" "$tmp/b.mlir"
expect_rc "two different programs: exit 0" 0
has "$tmp/out" "recompile of @main (program 2): 2 differences (1 baked_constant, 1 entry_signature): " \
    "both causes counted, grouped"
has "$tmp/out" "node 2 stablehlo.multiply operand 1: constant 2.000000e+00 became 3.000000e+00 (defined by node 1) (baked constant; pass it as a parameter) at $tmp/b.mlir:3:8" \
    "the baked constant: its consumer, old and new value, hint, B's line:col"
has "$tmp/out" "node 0 func.func: parameter 1 element type i32 became i64 (tensor<4xi32> became tensor<4xi64>)" \
    "the retyped parameter: index, old and new type"
has "$tmp/out" "at $tmp/b.mlir:1:11" "the parameter's location is B's @main"
hasnt "$tmp/out" "stablehlo.convert" "the convert's operand type is a consequence, not listed"
has "$tmp/out" "nearest cached program 1, 2 of 6 nodes differ" "2 of the 6 nodes differ"

run "$PLUMB" explain "$tmp/a.mlir" "$tmp/c.mlir"
has "$tmp/out" "recompile of @main (program 2): node 2 stablehlo.multiply operand 1: constant 2.000000e+00 became 3.000000e+00" \
    "a constant alone: one difference"
hasnt "$tmp/out" "differences (" "a single difference has no count"

run "$PLUMB" explain "$tmp/a.mlir" "$tmp/d.mlir"
expect_rc "the same program: exit 0" 0
has "$tmp/out" "same program: the second compile would be a cache hit" "other names and spacing are a cache hit"

run "$PLUMB" explain --json "$tmp/a.mlir" "$tmp/b.mlir"
if command -v jq > /dev/null 2>&1; then
    if jq -e '.same == false and .entry == "main" and .explanation.causes.baked_constant == 1
              and .explanation.causes.entry_signature == 1
              and (.explanation.differences | length) == 2
              and .explanation.differences[0].old == "2.000000e+00" and .explanation.differences[0].new == "3.000000e+00"
              and .explanation.differences[1].line == 1 and .explanation.differences[1].col == 11' \
        "$tmp/out" > /dev/null; then
        ok "--json: both differences with values and location"
    else
        fail "--json: both differences with values and location"
    fi
else
    has "$tmp/out" '"causes": {"baked_constant": 1, "entry_signature": 1}' "--json: causes (jq missing: text check)"
fi
run "$PLUMB" explain --json "$tmp/a.mlir" "$tmp/d.mlir"
has "$tmp/out" '"same": true}' "--json: the same program"

# --entry: only the named function (and what it calls) is compared.
cat > "$tmp/m1.mlir" <<'EOF'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %y = stablehlo.add %x, %c : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.negate %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
EOF
sed -e 's/1\.0/5.0/' "$tmp/m1.mlir" > "$tmp/m2.mlir"
run "$PLUMB" explain --entry step "$tmp/m1.mlir" "$tmp/m2.mlir"
has "$tmp/out" "same program: the second compile would be a cache hit" "--entry step: @main's constant does not matter"
run "$PLUMB" explain "$tmp/m1.mlir" "$tmp/m2.mlir"
has "$tmp/out" "constant 1.000000e+00 became 5.000000e+00" "default entry @main: the constant differs"

# Debug locations: the difference names the op's loc(...) (an alias
# defined after its use), in the line and in the JSON
cat > "$tmp/l1.mlir" <<'EOF'
func.func @main(%g: tensor<4xf32>) -> tensor<4xf32> {
  %lr = stablehlo.constant dense<0.5> : tensor<4xf32> loc("lr"("model.py":7:10))
  %step = stablehlo.multiply %g, %lr : tensor<4xf32> loc(#mul)
  return %step : tensor<4xf32>
}
#mul = loc("jit(step)/mul"("model.py":8:5))
EOF
sed -e 's/0\.5/0.25/' "$tmp/l1.mlir" > "$tmp/l2.mlir"
run "$PLUMB" explain "$tmp/l1.mlir" "$tmp/l2.mlir"
has "$tmp/out" "l2.mlir:3:11 (from jit(step)/mul at model.py:8:5)" "the explanation names the op's debug location"
run "$PLUMB" explain --json "$tmp/l1.mlir" "$tmp/l2.mlir"
has "$tmp/out" '"from": "jit(step)/mul at model.py:8:5"' "the JSON explanation has the debug location as from"

# Errors
run "$PLUMB" explain --entry nope "$tmp/a.mlir" "$tmp/b.mlir"
expect_rc "a missing entry exits 2" 2
has "$tmp/err" "has no function @nope" "the missing entry is named"
printf 'func.func @main() -> tensor<f32> {\n  %%c = stablehlo.frob : tensor<f32>\n  return %%c : tensor<f32>\n}\n' > "$tmp/bad.mlir"
run "$PLUMB" explain "$tmp/a.mlir" "$tmp/bad.mlir"
expect_rc "an invalid program exits 1" 1
has "$tmp/err" "bad.mlir:2:" "the invalid program's error has its location"
run "$PLUMB" explain "$tmp/a.mlir"
expect_rc "one program is a usage error" 2
run "$PLUMB" explain "$tmp/a.mlir" "$tmp/missing.mlir"
expect_rc "an unreadable program exits 2" 2
run "$PLUMB" explain --help
has "$tmp/out" "exit codes:" "--help lists the exit codes"

finish
