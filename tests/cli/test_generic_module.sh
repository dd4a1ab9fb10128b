#!/bin/sh
# A module written entirely in MLIR's generic form (what
# `mlir-opt --mlir-print-op-generic` prints: "builtin.module"() and
# "func.func"() with their properties, func.call and func.return generic too)
# means what its pretty form means: the small programs below run on the
# reference and on the runtime and give the results worked out by hand; the
# pretty and generic spellings of one program print the same result; and a
# generic func.func whose properties disagree with its body is refused with
# a message naming the function.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init generic

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed"
    exit 1
fi

# @main calls a private function with an argument (a ^bb0 entry block), one
# returning two results, and checks its sum: [1, 2, 3] + [10, 20, 30] =
# [11, 22, 33]; the module carries properties and an attribute dictionary.
cat > "$tmp/call.mlir" <<'MLIR'
"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = () -> tensor<3xi32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
    %0:2 = "func.call"() <{callee = @two}> : () -> (tensor<3xi32>, tensor<3xi32>)
    %1 = "func.call"(%0#0, %0#1) <{callee = @add}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %2 = "stablehlo.constant"() <{value = dense<[11, 22, 33]> : tensor<3xi32>}> : () -> tensor<3xi32>
    "stablehlo.custom_call"(%1, %2) <{call_target_name = "check.expect_eq", has_side_effect = true}> : (tensor<3xi32>, tensor<3xi32>) -> ()
    "func.return"(%1) : (tensor<3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (tensor<3xi32>, tensor<3xi32>), res_attrs = [{a = 1}, {}], sym_name = "two", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %1 = "stablehlo.constant"() <{value = dense<[10, 20, 30]> : tensor<3xi32>}> : () -> tensor<3xi32>
    "func.return"(%0, %1) : (tensor<3xi32>, tensor<3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {b = "x"}], function_type = (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>, sym_name = "add", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3xi32>, %arg1: tensor<3xi32>):
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    "func.return"(%0) : (tensor<3xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
MLIR
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/call.mlir" > "$tmp/out" 2> "$tmp/err" &&
        grep -q 'dense<\[11, 22, 33\]>' "$tmp/out"; then
        ok "$b: a generic module calls generic functions with arguments and two results"
    else
        fail "$b: a generic module calls generic functions with arguments and two results"
    fi
done

# The pretty spelling of a reduce over a generic @main's parameter: the
# running maximum of [3, -1, 7, 2] is 7 whichever spelling is used.
cat > "$tmp/pretty.mlir" <<'MLIR'
module @m {
  func.func public @main(%x: tensor<4xf32>) -> tensor<f32> {
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r = stablehlo.reduce(%x init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
}
MLIR
cat > "$tmp/generic.mlir" <<'MLIR'
"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %init = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %init) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
MLIR
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" --args '[dense<[3.0, -1.0, 7.0, 2.0]> : tensor<4xf32>]' "$tmp/pretty.mlir" > "$tmp/p.out" 2> "$tmp/err" &&
        "$PLUMB" run --backend "$b" --args '[dense<[3.0, -1.0, 7.0, 2.0]> : tensor<4xf32>]' "$tmp/generic.mlir" > "$tmp/g.out" 2> "$tmp/err" &&
        cmp -s "$tmp/p.out" "$tmp/g.out" && grep -q 'dense<7' "$tmp/g.out"; then
        ok "$b: pretty and generic spellings of one program give the same result (7)"
    else
        fail "$b: pretty and generic spellings of one program give the same result (7)"
    fi
done

# Debug locations in the generic form: an op's loc(#alias), the module's
# own loc(...) and the aliases MLIR prints after the module are read; the
# program then runs and its check fails as it should (1 + 1 is 2, not 3).
cat > "$tmp/loc.mlir" <<'MLIR'
"builtin.module"() ({
  "func.func"() <{function_type = () -> tensor<i32>, sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.add"(%0, %0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "check.expect_eq_const"(%1) <{value = dense<3> : tensor<i32>}> : (tensor<i32>) -> () loc(#loc1)
    "func.return"(%1) : (tensor<i32>) -> ()
  }) : () -> () loc(#loc2)
}) : () -> () loc(#loc2)
#loc1 = loc("model.py":12:7)
#loc2 = loc(unknown)
MLIR
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/loc.mlir" > "$tmp/out" 2> "$tmp/err"; then
        fail "$b: a failing check in a generic module with location aliases fails the run"
    elif grep -q 'check failed: check.expect_eq_const' "$tmp/err" && grep -q 'got 2 ' "$tmp/err"; then
        ok "$b: location aliases after a generic module are read (the check then fails: got 2)"
    else
        fail "$b: location aliases after a generic module are read (the check then fails: got 2)"
    fi
done

# refuse FILE WORDS...: plumb verify fails and its message holds each word
refuse() {
    f=$1
    shift
    if "$PLUMB" verify "$f" > "$tmp/out" 2> "$tmp/err"; then
        fail "$(basename "$f"): refused"
        return
    fi
    for w in "$@"; do
        if ! grep -q -- "$w" "$tmp/err"; then
            fail "$(basename "$f"): the message names '$w'"
            return
        fi
    done
    ok "$(basename "$f"): refused naming $*"
}
head='"builtin.module"() ({'
tail='}) : () -> ()'
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}> ({
  ^bb0(%a: tensor<3xf32>):
    "func.return"(%a) : (tensor<3xf32>) -> ()
  }) : () -> ()' "$tail" > "$tmp/argtype.mlir"
refuse "$tmp/argtype.mlir" "@f" "function_type"
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}> ({
    %c = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    "func.return"(%c) : (tensor<2xf32>) -> ()
  }) : () -> ()' "$tail" > "$tmp/argcount.mlir"
refuse "$tmp/argcount.mlir" "@f" "0 arguments"
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{function_type = () -> ()}> ({
    "func.return"() : () -> ()
  }) : () -> ()' "$tail" > "$tmp/noname.mlir"
refuse "$tmp/noname.mlir" "sym_name"
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{sym_name = "g"}> ({
    "func.return"() : () -> ()
  }) : () -> ()' "$tail" > "$tmp/notype.mlir"
refuse "$tmp/notype.mlir" "@g" "function_type"
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{function_type = () -> tensor<f32>, res_attrs = [{}, {}], sym_name = "h"}> ({
    %c = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%c) : (tensor<f32>) -> ()
  }) : () -> ()' "$tail" > "$tmp/resattrs.mlir"
refuse "$tmp/resattrs.mlir" "@h" "res_attrs"
# the return must still match function_type, as in the pretty form
printf '%s\n%s\n%s\n' "$head" '  "func.func"() <{function_type = () -> tensor<f32>, sym_name = "r"}> ({
    %c = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    "func.return"(%c) : (tensor<i32>) -> ()
  }) : () -> ()' "$tail" > "$tmp/ret.mlir"
refuse "$tmp/ret.mlir" "@r"

# Unit properties are a name alone (MLIR prints `no_inline` without a value),
# first, in the middle or last of the dictionary, on func.func and on
# builtin.module: the program still means [1, 2] + [3, 4] = [4, 6].
cat > "$tmp/unitprop.mlir" <<'MLIR'
"builtin.module"() <{some_unit, sym_name = "u"}> ({
  "func.func"() <{function_type = () -> tensor<2xi32>, no_inline, sym_name = "main", other_unit}> ({
    %0 = "func.call"() <{callee = @k}> : () -> tensor<2xi32>
    %1 = "stablehlo.constant"() <{value = dense<[3, 4]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %2 = "stablehlo.add"(%0, %1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    "func.return"(%2) : (tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{no_inline, function_type = () -> tensor<2xi32>, sym_name = "k", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
    "func.return"(%0) : (tensor<2xi32>) -> ()
  }) : () -> ()
}) : () -> ()
MLIR
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/unitprop.mlir" > "$tmp/out" 2> "$tmp/err" &&
        grep -q 'dense<\[4, 6\]>' "$tmp/out"; then
        ok "$b: unit properties (no_inline) in a generic module are accepted"
    else
        fail "$b: unit properties (no_inline) in a generic module are accepted: $(cat "$tmp/err")"
    fi
done

finish
