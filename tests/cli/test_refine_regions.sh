#!/bin/sh
# plumb refine gives the regions of while, if and case static types too:
# a while's cond and body take the loop's refined operand types and must
# return them (a body value that changes size cannot be refined, with a
# message saying so); each if/case branch is refined, and the op's '?'
# results follow from the branches when every branch returns one static
# type, whatever the selector (a parameter's value) picks. The refined
# program has no '?' left, verifies and computes what the original does
# (results worked out by hand). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init refine_regions
need_plumb

# x doubled twice in a loop: [1, 2, 3] -> [4, 8, 12]
cat > "$tmp/while.mlir" <<'EOM'
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %v = %x) : tensor<i32>, tensor<?xf32>
  cond {
    %two = stablehlo.constant dense<2> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<?xf32>
    stablehlo.return %n, %w : tensor<i32>, tensor<?xf32>
  }
  return %r#1 : tensor<?xf32>
}
EOM
# the selector is a parameter: both branches return tensor<3xf32> once x
# is, so the result is tensor<3xf32> for either; in the false branch
# get_dimension_size folds to 3 and the dynamic_broadcast_in_dim of it
# becomes a static broadcast (-x + 3)
cat > "$tmp/if.mlir" <<'EOM'
func.func @main(%p: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<?xf32>
  }, {
    %n = stablehlo.negate %x : tensor<?xf32>
    %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %df = stablehlo.convert %d : (tensor<i32>) -> tensor<f32>
    %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %b = stablehlo.dynamic_broadcast_in_dim %df, %d1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %s = stablehlo.add %n, %b : tensor<?xf32>
    stablehlo.return %s : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
EOM
# branches of different sizes (x and x ++ x): no one static type
cat > "$tmp/if_mixed.mlir" <<'EOM'
func.func @main(%p: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<?xf32>
  }, {
    %c = stablehlo.concatenate %x, %x, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    stablehlo.return %c : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
EOM
# the body doubles v's length each time
sed 's/%w = stablehlo.add %v, %v : tensor<?xf32>/%w = stablehlo.concatenate %v, %v, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>/' \
    "$tmp/while.mlir" > "$tmp/grow.mlir"

# refined FILE OUT ARGS...: plumb refine exits 0, OUT has no '?' and verifies
refined() {
    f=$1 o=$2
    shift 2
    if "$PLUMB" refine "$f" "$@" > "$o" 2> "$tmp/err" && ! grep -q '?' "$o" && "$PLUMB" verify "$o" > /dev/null 2>> "$tmp/err"; then
        return 0
    fi
    cp "$o" "$tmp/out" 2>/dev/null
    return 1
}

if refined "$tmp/while.mlir" "$tmp/while3.mlir" --shape x=3; then ok "while: cond and body refined to tensor<3xf32>, no '?' left"
else fail "while: cond and body refined to tensor<3xf32>, no '?' left"; fi
expect_both "the refined while computes [4, 8, 12]" 'tensor<3xf32> dense<[4.0, 8.0, 12.0]>' \
    "$tmp/while3.mlir" --args '[dense<[1.0, 2.0, 3.0]> : tensor<3xf32>]'
if refined "$tmp/if.mlir" "$tmp/if3.mlir" --shape p= --shape x=3 &&
    grep -q 'constant dense<3> : tensor<i32>' "$tmp/if3.mlir" && ! grep -q 'dynamic_broadcast_in_dim' "$tmp/if3.mlir"; then
    ok "if with a parameter as predicate: both branches refined, the size folded to 3, the broadcast static"
else fail "if with a parameter as predicate: both branches refined, the size folded to 3, the broadcast static"; fi
# false: -x + 3 = [2, 1, 0]; true: x
expect_both "the refined if, false branch: -x + 3" 'tensor<3xf32> dense<[2.0, 1.0, 0.0]>' \
    "$tmp/if3.mlir" --args '[dense<false> : tensor<i1>, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>]'
expect_both "the refined if, true branch: x" 'tensor<3xf32> dense<[1.0, 2.0, 3.0]>' \
    "$tmp/if3.mlir" --args '[dense<true> : tensor<i1>, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>]'

run "$PLUMB" refine "$tmp/grow.mlir" --shape x=3
expect_rc "a while body that changes the carried size cannot be refined" 1
expect_err "the message names the sizes" 'the body returns tensor<6xf32> as value 1 but the loop carries tensor<3xf32>'
run "$PLUMB" refine "$tmp/if_mixed.mlir" --shape p= --shape x=3
expect_rc "an if whose branches differ in size under a parameter predicate cannot be refined" 1
expect_err "the message says the predicate is not known" "the predicate that selects it is not known here"
finish
