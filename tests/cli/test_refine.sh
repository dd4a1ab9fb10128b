#!/bin/sh
# Tests of plumb refine: programs with '?' dimensions specialized to given
# parameter shapes. The expected refined programs below were written by hand
# from the rules in docs/spec/interpreter.md ("Refinement"): '?' replaced by
# the size, get_dimension_size folded, each dynamic op turned into its static
# counterpart, passing shape assertions dropped, unused ops and unreached
# functions removed. Every refined program must also pass plumb verify.
# Run by tests/run.sh with PLUMB set to the binary; StableHLO's
# testdata/dynamic programs come from STABLEHLO_TESTDATA, else
# $SHARED/stablehlo-testdata (skipped when missing). Ends with
# "N passed, N failed, N skipped". JSON is checked with jq (ci/deps.sh).
. "$(dirname "$0")/lib.sh"
lib_init refine
skipped=0

# expect_out DESCRIPTION FILE: stdout of the last run equals FILE.
expect_out() {
    if cmp -s "$tmp/out" "$2"; then ok "$1"; else
        fail "$1"
        diff "$2" "$tmp/out" | sed 's/^/    /' | head -n 20
    fi
}
# expect_err DESCRIPTION TEXT: stderr of the last run contains TEXT.
if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# ---- a dot with a bias broadcast to a shape computed from the batch size ----
cat > "$tmp/dot.mlir" <<'MLIR'
func.func @main(%x: tensor<?x3xf32, #stablehlo.bounds<16, ?>>, %w: tensor<3x2xf32>) -> tensor<?x2xf32, #stablehlo.bounds<16, ?>> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<16, ?>>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %s = stablehlo.concatenate %n1, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x3xf32, #stablehlo.bounds<16, ?>>, tensor<3x2xf32>) -> tensor<?x2xf32, #stablehlo.bounds<16, ?>>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %bb = stablehlo.dynamic_broadcast_in_dim %b, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x2xf32, #stablehlo.bounds<16, ?>>
  %r = stablehlo.add %d, %bb : tensor<?x2xf32, #stablehlo.bounds<16, ?>>
  return %r : tensor<?x2xf32, #stablehlo.bounds<16, ?>>
}
MLIR
# x = 5x3: the shape operand [5, 2] is known, so the broadcast is static;
# the shape computation (get_dimension_size, reshape, concatenate) goes.
cat > "$tmp/dot.5.mlir" <<'MLIR'
func.func @main(%arg0: tensor<5x3xf32>, %arg1: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
  %1 = stablehlo.constant dense<1.0> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<5x2xf32>
  %3 = stablehlo.add %0, %2 : tensor<5x2xf32>
  return %3 : tensor<5x2xf32>
}
MLIR
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x3
expect_rc "refine x=5x3 succeeds" 0
expect_out "refine x=5x3 gives the static program" "$tmp/dot.5.mlir"
cp "$tmp/out" "$tmp/refined.mlir"
run "$PLUMB" verify "$tmp/refined.mlir"
expect_rc "the refined program verifies" 0

run "$PLUMB" refine "$tmp/dot.mlir" --shape 0=5x3
expect_out "a parameter named by its index" "$tmp/dot.5.mlir"

# Size 0 and the bound 16 are sizes like any other.
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=16x3
expect_rc "refine at the bound succeeds" 0
if grep -qF 'func.func @main(%arg0: tensor<16x3xf32>, %arg1: tensor<3x2xf32>) -> tensor<16x2xf32> {' "$tmp/out"; then
    ok "refine at the bound: signature 16x3 -> 16x2"
else fail "refine at the bound: signature 16x3 -> 16x2"; fi
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=0x3
if grep -qF 'stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<0x2xf32>' "$tmp/out"; then
    ok "refine at size 0: an empty broadcast"
else fail "refine at size 0: an empty broadcast"; fi

run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x3 -o "$tmp/o.mlir"
if [ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && cmp -s "$tmp/o.mlir" "$tmp/dot.5.mlir"; then
    ok "-o writes the refined program to the file"
else fail "-o writes the refined program to the file"; fi

run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x3 --json
expect_rc "--json succeeds" 0
if [ "$(jq -r '.entry' "$tmp/out")" = main ] &&
   [ "$(jq -r '.parameters[0].name + " " + .parameters[0].type' "$tmp/out")" = "arg0 tensor<5x3xf32>" ] &&
   [ "$(jq -r '.parameters[1].index' "$tmp/out")" = 1 ] &&
   [ "$(jq -r '.results[0]' "$tmp/out")" = "tensor<5x2xf32>" ]; then
    ok "--json: entry, parameter types and result types"
else fail "--json: entry, parameter types and result types"; fi
jq -j '.module' "$tmp/out" > "$tmp/json-module.mlir"
if cmp -s "$tmp/json-module.mlir" "$tmp/dot.5.mlir"; then ok "--json: the module text"; else fail "--json: the module text"; fi

# ---- every dynamic op with a static counterpart ----------------------------
cat > "$tmp/ops.mlir" <<'MLIR'
func.func @main(%x: tensor<?xi32, #stablehlo.bounds<10>>) -> (tensor<?xi32, #stablehlo.bounds<10>>, tensor<?xf32, #stablehlo.bounds<10>>, tensor<?xi32, #stablehlo.bounds<30>>, tensor<2x?xi32, #stablehlo.bounds<?, 10>>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xi32, #stablehlo.bounds<10>>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %i = stablehlo.dynamic_iota %n1, dim = 0 : (tensor<1xi32>) -> tensor<?xf32, #stablehlo.bounds<10>>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c0 = stablehlo.constant dense<0> : tensor<1xi32>
  %z = stablehlo.constant dense<7> : tensor<i32>
  %s = stablehlo.real_dynamic_slice %x, %c1, %n1, %c1 : (tensor<?xi32, #stablehlo.bounds<10>>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32, #stablehlo.bounds<10>>
  %p = stablehlo.dynamic_pad %x, %z, %c1, %c0, %c1 : (tensor<?xi32, #stablehlo.bounds<10>>, tensor<i32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32, #stablehlo.bounds<30>>
  %half = stablehlo.constant dense<2> : tensor<i32>
  %h = stablehlo.divide %n, %half : tensor<i32>
  %h1 = stablehlo.reshape %h : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %rs = stablehlo.concatenate %two, %h1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %x, %rs : (tensor<?xi32, #stablehlo.bounds<10>>, tensor<2xi32>) -> tensor<2x?xi32, #stablehlo.bounds<?, 10>>
  return %s, %i, %p, %r : tensor<?xi32, #stablehlo.bounds<10>>, tensor<?xf32, #stablehlo.bounds<10>>, tensor<?xi32, #stablehlo.bounds<30>>, tensor<2x?xi32, #stablehlo.bounds<?, 10>>
}
MLIR
# x = 4: iota of 4; slice [1:4] (3 elements); pad low 1, high 0, interior 1:
# 1 + 0 + 4 + 3 = 8; reshape to [2, 4 / 2] = 2x2.
cat > "$tmp/ops.4.mlir" <<'MLIR'
func.func @main(%arg0: tensor<4xi32>) -> (tensor<3xi32>, tensor<4xf32>, tensor<8xi32>, tensor<2x2xi32>) {
  %0 = stablehlo.iota dim = 0 : tensor<4xf32>
  %1 = stablehlo.constant dense<7> : tensor<i32>
  %2 = stablehlo.slice %arg0 [1:4] : (tensor<4xi32>) -> tensor<3xi32>
  %3 = stablehlo.pad %arg0, %1, low = [1], high = [0], interior = [1] : (tensor<4xi32>, tensor<i32>) -> tensor<8xi32>
  %4 = stablehlo.reshape %arg0 : (tensor<4xi32>) -> tensor<2x2xi32>
  return %2, %0, %3, %4 : tensor<3xi32>, tensor<4xf32>, tensor<8xi32>, tensor<2x2xi32>
}
MLIR
run "$PLUMB" refine "$tmp/ops.mlir" --shape x=4
expect_rc "dynamic ops: refine x=4 succeeds" 0
expect_out "dynamic ops become iota, slice, pad and reshape" "$tmp/ops.4.mlir"
# x = 5: 5 / 2 = 2 rows of 2 hold 4 elements, not 5.
run "$PLUMB" refine "$tmp/ops.mlir" --shape x=5
expect_rc "dynamic ops: x=5 cannot be reshaped to 2x2" 1
expect_err "the reshape error names the op and both counts" "stablehlo.dynamic_reshape"

# ---- calls, assertions, unreached functions ---------------------------------
cat > "$tmp/call.mlir" <<'MLIR'
func.func private @sq(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = stablehlo.multiply %a, %a : tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func private @unused(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c = stablehlo.constant dense<8> : tensor<i32>
  %ok = stablehlo.compare LE, %n, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "size {0} above 8", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %r = func.call @sq(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
MLIR
cat > "$tmp/call.3.mlir" <<'MLIR'
func.func private @sq(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = call @sq(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
MLIR
run "$PLUMB" refine "$tmp/call.mlir" --shape x=3
expect_out "the callee is refined, the passing assertion and @unused dropped" "$tmp/call.3.mlir"
run "$PLUMB" refine "$tmp/call.mlir" --shape x=9
expect_rc "a failing shape assertion: exit 1" 1
expect_err "a failing shape assertion: the program's message with {0} = 9" \
    "call.mlir:12:3: error: custom_call.shape_assertion: fails for these shapes, so the program cannot be refined to them: size 9 above 8"

# JAX's shape-polymorphic export: main passes the dimension size to the
# wrapped function as a scalar argument, which builds its shapes from it.
cat > "$tmp/jax.mlir" <<'MLIR'
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = func.call @_wrapped(%0, %arg0) : (tensor<i32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
func.func private @_wrapped(%d: tensor<i32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.dynamic_broadcast_in_dim %z, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
  %y = stablehlo.add %x, %b : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
MLIR
cat > "$tmp/jax.3.mlir" <<'MLIR'
func.func @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.constant dense<3> : tensor<i32>
  %1 = call @_wrapped(%0, %arg0) : (tensor<i32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
func.func private @_wrapped(%arg0: tensor<i32>, %arg1: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
  %2 = stablehlo.add %arg1, %1 : tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}
MLIR
run "$PLUMB" refine "$tmp/jax.mlir" --shape arg0=3x4
expect_rc "a dimension size passed as an argument: refine succeeds" 0
expect_out "... the callee folds it into a static broadcast" "$tmp/jax.3.mlir"

# One function called at two shapes: each function gets one signature.
cat > "$tmp/twice.mlir" <<'MLIR'
func.func private @id(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = func.call @id(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %b = func.call @id(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}
MLIR
run "$PLUMB" refine "$tmp/twice.mlir" --shape x=2 --shape y=2
expect_rc "a callee called twice at one shape" 0
run "$PLUMB" refine "$tmp/twice.mlir" --shape x=2 --shape y=3
expect_rc "a callee called at two shapes: exit 1" 1
expect_err "... names the call, the callee and both types" \
    "twice.mlir:6:8: error: func.call: @id's parameter 0 is tensor<3xf32> here but tensor<2xf32> at an earlier call"

# Two parameters refined to sizes an op needs equal: 5 and 4 for `add`.
cat > "$tmp/two.mlir" <<'MLIR'
func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<5xf32> {
  %r = stablehlo.add %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
MLIR
run "$PLUMB" refine "$tmp/two.mlir" --shape x=5 --shape y=5
expect_rc "add of two parameters at one size" 0
run "$PLUMB" refine "$tmp/two.mlir" --shape x=5 --shape y=4
expect_rc "add of two parameters at sizes 5 and 4: exit 1" 1
expect_err "... names the op, the operand and both shapes" \
    "two.mlir:2:8: error: stablehlo.add: operand 1 (%y): shape of tensor<4xf32> does not match operand 0's tensor<5xf32>"

# A dimension size passed as a scalar parameter (JAX's testdata/dynamic
# programs): --value fixes it; the slice [0:n-1] of a 4x2 is rows 0..2.
cat > "$tmp/dimarg.mlir" <<'MLIR'
func.func @main(%n: tensor<i64>, %x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %c = stablehlo.constant dense<1> : tensor<i64>
  %m = stablehlo.subtract %n, %c : tensor<i64>
  %m32 = stablehlo.convert %m : (tensor<i64>) -> tensor<i32>
  %lim = stablehlo.reshape %m32 : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %l = stablehlo.concatenate %lim, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %z = stablehlo.constant dense<0> : tensor<2xi32>
  %o = stablehlo.constant dense<1> : tensor<2xi32>
  %s = stablehlo.real_dynamic_slice %x, %z, %l, %o : (tensor<?x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>
  return %s : tensor<?x2xf32>
}
MLIR
cat > "$tmp/dimarg.4.mlir" <<'MLIR'
func.func @main(%arg0: tensor<i64>, %arg1: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.slice %arg1 [0:3, 0:2] : (tensor<4x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
MLIR
run "$PLUMB" refine "$tmp/dimarg.mlir" --value n=4 --shape x=4x2
expect_rc "--value fixes a dimension size parameter" 0
expect_out "... and the slice becomes static" "$tmp/dimarg.4.mlir"
run "$PLUMB" refine "$tmp/dimarg.mlir" --shape x=4x2
expect_rc "without --value the slice depends on a parameter's value: exit 1" 1
run "$PLUMB" refine "$tmp/dimarg.mlir" --value x=4 --shape x=4x2
expect_rc "--value on a tensor parameter: exit 2" 2
expect_err "... says only integer scalars take it" "only integer scalars take --value"
run "$PLUMB" refine "$tmp/dimarg.mlir" --value n=x --shape x=4x2
expect_rc "--value that is not an integer: exit 2" 2

# ---- what cannot be refined, and usage errors --------------------------------
cat > "$tmp/value.mlir" <<'MLIR'
func.func @main(%k: tensor<1xi32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %s = stablehlo.real_dynamic_slice %x, %c0, %k, %c1 : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
MLIR
run "$PLUMB" refine "$tmp/value.mlir" --shape x=6
expect_rc "a shape operand from a parameter's value: exit 1" 1
expect_err "... names the op, the operand and why" \
    "value.mlir:4:8: error: stablehlo.real_dynamic_slice: operand 2 (%k) (limit_indices) is not a constant once the parameter shapes are known: it depends on a parameter's value"

run "$PLUMB" refine "$tmp/dot.mlir" --shape y=5x3
expect_rc "an unknown parameter name: exit 2" 2
expect_err "... lists the parameters" "@main has no parameter 'y' (its parameters: x, w; or give an index)"
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5
expect_rc "a rank mismatch: exit 2" 2
expect_err "... names the parameter and both ranks" "parameter 0 (%x) has rank 2 (tensor<?x3xf32, #stablehlo.bounds<16, ?>>), 1 dimension given"
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=17x3
expect_rc "a size above its bound: exit 2" 2
expect_err "... names the parameter, dimension, size and bound" "parameter 0 (%x) dimension 0: size 17 exceeds its bound 16"
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x4
expect_rc "a static size contradicted: exit 2" 2
expect_err "... names the dimension and both sizes" "parameter 0 (%x) dimension 1: size 4 given, 3 declared"
run "$PLUMB" refine "$tmp/dot.mlir"
expect_rc "a '?' parameter without --shape: exit 2" 2
expect_err "... says which option to give" "give its shape with --shape x=DIMS"
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x
expect_rc "a malformed DIMS: exit 2" 2
run "$PLUMB" refine "$tmp/dot.mlir" --shape x=5x3 --entry nope
expect_rc "an unknown --entry: exit 2" 2

# ---- StableHLO's testdata/dynamic: refined at size 3, same results ----------
# Every program of op set v1 there takes its dimension sizes as leading
# tensor<i64> parameters: each gets --value 3 and each '?' the size 3. The
# refined program must have no '?' and no dynamic op left, verify, and give
# the reference's results of the original run at size 3 (plumb run
# --random-inputs --dim-size 3 gives both the same data).
TESTDATA=${STABLEHLO_TESTDATA:-${SHARED:-../shared}/stablehlo-testdata}
if [ -d "$TESTDATA/dynamic" ]; then
    n_td=0
    for f in "$TESTDATA"/dynamic/*.mlir; do
        [ -f "$f" ] || continue
        "$PLUMB" run --random-inputs 1 --dim-size 3 "$f" > "$tmp/orig.out" 2> /dev/null || continue   # not op set v1
        sig=$(grep -m1 'func.func public @main' "$f" | sed 's/.*@main(//; s/) ->.*//')
        args=""
        for a in $(echo "$sig" | grep -o '%arg[0-9]*: tensor<[^>]*>' | tr ' ' '#'); do
            name=$(echo "$a" | sed 's/%\(arg[0-9]*\):.*/\1/')
            ty=$(echo "$a" | sed 's/.*tensor<//; s/>$//')
            case "$ty" in
            i64) args="$args --value $name=3" ;;
            *\?*) args="$args --shape $name=$(echo "$ty" | sed 's/x[a-z][a-z0-9]*$//; s/?/3/g')" ;;
            esac
        done
        b=$(basename "$f")
        # shellcheck disable=SC2086
        if "$PLUMB" refine "$f" $args > "$tmp/td.mlir" 2> "$tmp/err" &&
           ! grep -q 'dynamic_\|get_dimension_size\|?' "$tmp/td.mlir" &&
           "$PLUMB" verify "$tmp/td.mlir" > /dev/null 2> "$tmp/err" &&
           "$PLUMB" run --random-inputs 1 "$tmp/td.mlir" > "$tmp/td.out" 2> "$tmp/err" &&
           cmp -s "$tmp/orig.out" "$tmp/td.out"; then
            n_td=$((n_td + 1))
        else
            fail "testdata $b: refined at size 3 ($args) is static, verifies and gives the same results"
        fi
    done
    if [ "$n_td" -gt 0 ]; then ok "testdata/dynamic: $n_td programs refined at size 3, static, same results"
    else fail "testdata/dynamic: at least one program refined"; fi
else
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=1
fi

run "$PLUMB" refine --help
if [ "$rc" = 0 ] && grep -q -- '--shape NAME=DIMS' "$tmp/out" && grep -q '^examples:' "$tmp/out" &&
   grep -q '^exit codes:' "$tmp/out"; then
    ok "--help shows the options, examples and exit codes"
else fail "--help shows the options, examples and exit codes"; fi

finish
