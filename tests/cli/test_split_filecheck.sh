#!/bin/sh
# plumb run on a RUN line that pipes -split-input-file output into
# FileCheck, as StableHLO's interpreter test printing.mlir does: every case
# runs, the cases' printed results are joined as stablehlo-translate joins
# them (mlir-translate's output split marker is empty, so one empty line
# between two cases) and the CHECK lines are matched against the whole;
# --interpreter-print-dense prints results as dense<...> : TYPE; the
# {LITERAL} modifier. One verdict per RUN line. Expected outputs are worked
# out by hand (1 + 1 = 2, 2 + 2 = 4; 1.5 and -2 print in MLIR's 6-digit
# form). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init splitfc
need_plumb
has() { grep -qxF -- "$1" "$tmp/out" && ok "$2" || fail "$2: no line '$1'"; }

cat > "$tmp/two.mlir" <<'EOM'
// RUN: stablehlo-translate --interpret --split-input-file %s | FileCheck %s
// RUN: stablehlo-translate --interpret --interpreter-print-dense -split-input-file %s | FileCheck %s --check-prefix=DENSE

func.func @first() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  func.return %1 : tensor<2xi32>
}
// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [2, 4]
// CHECK-NEXT: }
// CHECK-EMPTY:
// DENSE: dense<[2, 4]> : tensor<2xi32>
// DENSE-EMPTY:

// -----

func.func @second() -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.constant dense<(1.5, -2.0)> : tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}
// CHECK-NEXT: tensor<2xcomplex<f32>> {
// CHECK-NEXT{LITERAL}:   [[1.500000e+00, -2.000000e+00], [1.500000e+00, -2.000000e+00]]
// CHECK-NEXT: }
// DENSE-NEXT: dense<(1.500000e+00,-2.000000e+00)> : tensor<2xcomplex<f32>>
EOM
f=$tmp/two.mlir
for b in ref runtime; do
    run "$PLUMB" run --backend "$b" "$f"
    expect_rc "split output into FileCheck: exit 0 on $b" 0
    has "$f:1: RUN 1: ok" "RUN 1: both cases' results, joined by an empty line, match on $b"
    has "$f:2: RUN 2: ok" "RUN 2: --interpreter-print-dense, splat and list forms, on $b"
    has "2 passed, 0 failed, 0 unsupported" "summary on $b"
done

# A wrong expectation in the second case fails its RUN line, exit 1.
sed 's/\[\[1.500000e+00, -2.000000e+00\], \[1.5/[[1.500000e+00, -2.000000e+00], [2.5/' "$f" > "$tmp/wrong.mlir"
run "$PLUMB" run "$tmp/wrong.mlir"
expect_rc "a CHECK that does not match: exit 1" 1
grep -q "^$tmp/wrong.mlir:1: RUN 1: FAILED: line 23: CHECK-NEXT: .* not found in the output" "$tmp/out" \
    && ok "the failed RUN line names the CHECK line" || fail "RUN 1 verdict of wrong.mlir"
has "$tmp/wrong.mlir:2: RUN 2: ok" "the other RUN line still passes"

# Without the modifier, [[ is a FileCheck variable: unsupported, not matched loosely.
sed 's/CHECK-NEXT{LITERAL}:/CHECK-NEXT:/' "$f" > "$tmp/var.mlir"
run "$PLUMB" run "$tmp/var.mlir"
has "$tmp/var.mlir:1: RUN 1: unsupported: FileCheck variable on line 23" "[[ without {LITERAL}: unsupported"

# A case whose own check fails fails the RUN line, naming the case.
cat > "$tmp/bad.mlir" <<'EOM'
// RUN: stablehlo-translate --interpret -split-input-file %s | FileCheck %s
func.func @main() -> tensor<i32> {
  %0 = stablehlo.constant dense<7> : tensor<i32>
  func.return %0 : tensor<i32>
}
// CHECK: tensor<i32> {7}
// -----
func.func @main() {
  %0 = stablehlo.constant dense<7> : tensor<i32>
  check.expect_eq_const %0, dense<8> : tensor<i32>
  func.return
}
EOM
run "$PLUMB" run "$tmp/bad.mlir"
expect_rc "a failing case: exit 1" 1
grep -q "^$tmp/bad.mlir:1: RUN 1: FAILED: .*(case at line 8)" "$tmp/out" \
    && ok "the failing case is named by its line" || fail "RUN 1 verdict of bad.mlir"

# --args on split output stays unsupported (upstream gives every case the same inputs).
printf '%s\n' '// RUN: stablehlo-translate --interpret -split-input-file --args="[dense<1> : tensor<i32>]" %s' \
    'func.func @main(%a: tensor<i32>) -> tensor<i32> {' '  func.return %a : tensor<i32>' '}' > "$tmp/args.mlir"
run "$PLUMB" run "$tmp/args.mlir"
has "$tmp/args.mlir:1: RUN 1: unsupported: --args or 'not' on -split-input-file output" "--args on split output"
finish
