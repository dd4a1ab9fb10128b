#!/bin/sh
# plumb run on RUN lines that pass inputs through a file an earlier RUN line
# wrote, as StableHLO's interpret/api_input_arguments_from_file.mlir does:
#   echo "[...]" > %t.args
#   stablehlo-translate %s --interpret --args=@%t.args | FileCheck %s
# The echo line is setup (no verdict of its own), the --args line runs with
# the echoed inputs; a file no earlier line wrote, or several files, fail
# (a 'not' line then gets plumb's usual error-message verdict); --args from
# any other file stays unsupported. Expected sums by hand: 1 + 2 = 3 and
# 5 + 7 = 12. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init argsfile
need_plumb
has() { grep -qxF -- "$1" "$tmp/out" && ok "$2" || fail "$2: no line '$1'"; }

cat > "$tmp/f.mlir" <<'EOM'
// RUN: echo "[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]" > %t.args
// RUN: stablehlo-translate %s --interpret --args=@%t.args | FileCheck %s
// RUN: not stablehlo-translate %s --interpret --args=@%t.does_not_exist 2>&1 | FileCheck %s --check-prefixes=NOFILE
// NOFILE: failed to read args file
// RUN: not stablehlo-translate %s --interpret --args=@%t.args,@%t.args 2>&1 | FileCheck %s --check-prefixes=MULTI
// MULTI: expected a single args file
// RUN: echo "[dense<[5, 7]> : tensor<2xi32>, dense<[7, 5]> : tensor<2xi32>]" > %t.args
// RUN: stablehlo-translate %s --interpret --args=@%t.args | FileCheck %s --check-prefix=LATER

func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [3, 3]
// CHECK-NEXT: }
// LATER:      [12, 12]
EOM
f=$tmp/f.mlir
for b in ref runtime; do
    run "$PLUMB" run --backend "$b" "$f"
    expect_rc "exit 0 on $b" 0
    has "$f:1: RUN 1: setup: writes %t.args" "the echo line is setup on $b"
    has "$f:2: RUN 2: ok" "--args=@%t.args takes the echoed inputs on $b"
    grep -q "^$f:3: RUN 3: unsupported: error-message check (.*no earlier RUN line writes %t.does_not_exist)" \
        "$tmp/out" && ok "a file nobody wrote: rejected, message check unsupported on $b" || fail "RUN 3 on $b"
    grep -q "^$f:5: RUN 4: unsupported: error-message check (.*one args file is read, not several)" "$tmp/out" \
        && ok "several args files: rejected on $b" || fail "RUN 4 on $b"
    has "$f:7: RUN 5: setup: writes %t.args" "a second echo on $b"
    has "$f:8: RUN 6: ok" "a later line reads the latest echo into the file on $b"
    has "2 passed, 0 failed, 2 unsupported" "summary (setup lines are no verdicts) on $b"
done

# Without 'not', a missing file fails the line and the run.
printf '%s\n' '// RUN: stablehlo-translate %s --interpret --args=@%t.nothing' \
    'func.func @main(%a: tensor<i32>) -> tensor<i32> {' '  func.return %a : tensor<i32>' '}' > "$tmp/miss.mlir"
run "$PLUMB" run "$tmp/miss.mlir"
expect_rc "missing args file without 'not': exit 1" 1
has "$tmp/miss.mlir:1: RUN 1: FAILED: --args=@%t.nothing: no earlier RUN line writes %t.nothing" "its verdict"

# Any other file (a path, .npy) stays unsupported.
printf '%s\n' '// RUN: stablehlo-translate %s --interpret --args=@inputs.npy' \
    'func.func @main(%a: tensor<i32>) -> tensor<i32> {' '  func.return %a : tensor<i32>' '}' > "$tmp/npy.mlir"
run "$PLUMB" run "$tmp/npy.mlir"
has "$tmp/npy.mlir:1: RUN 1: unsupported: --args read from files ('@inputs.npy')" "--args from a real file: unsupported"
finish
