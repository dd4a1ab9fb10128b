#!/bin/sh
# tools/upstream_triage.sh on a folder of small hand-written programs whose
# verdicts are known: a passing program, a failing check, a syntax error,
# a custom call outside plumb's op set, a split file with one passing and
# one unsupported case, a split chunk with no entry function, an @main
# with parameters (run on generated inputs), and `stablehlo.square` (the spelling StableHLO's
# interpreter tests use for CHLO's square). The text table counts each
# verdict per backend, the reasons table names each cause, --list names
# each file, --json is one valid object with the same counts, and bad
# arguments exit 2. The square program also runs alone on both backends.
# Modules with several public functions and no @main run each as a case.
# Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init triage-test
skipped=0
has() { grep -qF -- "$1" "$tmp/out" && ok "$2" || fail "$2: no line with '$1'"; }

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

mkdir "$tmp/d"
cat > "$tmp/d/a_pass.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %r = stablehlo.add %a, %a : tensor<2xf32>
  check.expect_eq_const %r, dense<[3.0, -4.0]> : tensor<2xf32>
  func.return
}
EOM
# 2 + 2 is 4, not 5: the check fails on both backends.
cat > "$tmp/d/b_fail.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.add %a, %a : tensor<i32>
  check.expect_eq_const %r, dense<5> : tensor<i32>
  func.return
}
EOM
cat > "$tmp/d/c_syntax.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.add %a %a : tensor<i32>
  func.return
}
EOM
cat > "$tmp/d/d_unsupported.mlir" <<'EOM'
func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = stablehlo.custom_call @vendor.kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
EOM
cat > "$tmp/d/e_split.mlir" <<'EOM'
// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @negates() {
  %a = stablehlo.constant dense<[1, -7]> : tensor<2xi64>
  %r = stablehlo.negate %a : tensor<2xi64>
  check.expect_eq_const %r, dense<[-1, 7]> : tensor<2xi64>
  func.return
}

// -----

func.func @vendor() {
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %r = stablehlo.custom_call @vendor.kernel(%a) : (tensor<f32>) -> tensor<f32>
  func.return
}
EOM
# Squares of exactly representable values are exact: 1.5^2 = 2.25,
# (-3)^2 = 9, 0.1^2 in f64 rounds once (checked with almost_eq), and
# squaring 2^64 = 1.8446744073709552e19 gives 2^128, past f32's range.
cat > "$tmp/d/f_square.mlir" <<'EOM'
func.func @main() {
  %a = stablehlo.constant dense<[1.5, -3.0, 1.8446744073709552e19]> : tensor<3xf32>
  %r = stablehlo.square %a : tensor<3xf32>
  check.expect_eq_const %r, dense<[2.25, 9.0, 0x7F800000]> : tensor<3xf32>
  %b = stablehlo.constant dense<[0.5, -0.25]> : tensor<2xf64>
  %s = "stablehlo.square"(%b) : (tensor<2xf64>) -> tensor<2xf64>
  check.expect_eq_const %s, dense<[0.25, 0.0625]> : tensor<2xf64>
  func.return
}
EOM

# A chunk with two public functions and no @main (a '// // -----' line in
# StableHLO's triangular_solve.mlir does this): that case fails with a
# reason that names no file.
cat > "$tmp/d/g_two.mlir" <<'EOM'
// RUN: stablehlo-translate --interpret -split-input-file %s
func.func @one() {
  func.return
}
// // -----
func.func @two() {
  func.return
}
EOM

# @main with parameters and no RUN line: runs on generated inputs.
cat > "$tmp/d/h_params.mlir" <<'EOM'
func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
EOM

for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/d/f_square.mlir" > "$tmp/out" 2> "$tmp/err"; then
        ok "stablehlo.square (pretty and generic) runs as CHLO's square on $b"
    else
        fail "stablehlo.square (pretty and generic) runs as CHLO's square on $b"
    fi
done
if "$PLUMB" fmt "$tmp/d/f_square.mlir" > "$tmp/out" 2> "$tmp/err" && grep -q 'chlo.square' "$tmp/out" &&
    ! grep -q 'stablehlo.square' "$tmp/out"; then
    ok "the canonical printer writes stablehlo.square as chlo.square"
else
    fail "the canonical printer writes stablehlo.square as chlo.square"
fi

sh tools/upstream_triage.sh --plumb "$PLUMB" --timeout 60 --list "$tmp/d" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok "triage exits 0" || fail "triage exits 0 (got $rc)"
# eight files counted per verdict: PASS a_pass, f_square, h_params; FAIL b_fail,
# c_syntax, g_two (its one case failed); UNSUPPORTED d_unsupported, e_split
# (one case passed, one unsupported).
has "| ref | 8 | 3 | 3 | 2 | 0 | 0 | 1 | 1 | 1 |" "the ref row counts 3 PASS, 3 FAIL, 2 UNSUPPORTED and the split files' cases"
has "| runtime | 8 | 3 | 3 | 2 | 0 | 0 | 1 | 1 | 1 |" "the runtime row counts the same"
has "| 1 | ref | FAIL | FILE has no @main and 2 public functions (use --entry NAME) |" \
    "a failed case without a function name is a reason, its file name replaced by FILE"
has "| 2 | ref | UNSUPPORTED | unsupported: custom_call target '@vendor.kernel' is not in plumb's op set |" \
    "one unsupported reason counts both files that have it"
has "| 1 | ref | FAIL | check failed: check.expect_eq_const |" "a failed check is a reason"
has "| 1 | runtime | FAIL | expected ':', found '%' |" "a syntax error is a reason, without its position"
has "FAIL        ref     $tmp/d/b_fail.mlir  -- check failed: check.expect_eq_const" "--list names the file and its first reason"
has "PASS        runtime $tmp/d/f_square.mlir" "--list names a passing file"

if command -v jq > /dev/null 2>&1; then
    sh tools/upstream_triage.sh --plumb "$PLUMB" --json "$tmp/d" > "$tmp/out" 2> "$tmp/err"
    if jq -e '(.files | length) == 16 and .summary.ref.PASS == 3 and .summary.runtime.FAIL == 3 and
              .summary.ref.UNSUPPORTED == 2 and
              ([.files[] | select(.file | endswith("e_split.mlir")) | .cases.passed] == [1, 1]) and
              ([.reasons[] | select(.verdict == "UNSUPPORTED" and .backend == "ref") | .files] == [2])' \
        "$tmp/out" > /dev/null 2>&1; then
        ok "--json is one object with the same counts"
    else
        fail "--json is one object with the same counts"
    fi
else
    skipped=$((skipped + 1))
    echo "skip - --json check (jq not installed; ci/deps.sh installs it)"
fi

# Modules with no @main and several public functions without parameters
# (interpreter tests merged into one module): each public function runs as
# a case, a private one is only called. m_pretty: @adds passes (1 + 1 = 2
# through the private @one), @wrong fails (2 is not 3); m_generic (the
# generic form): @neg and @sub pass.
mkdir "$tmp/m"
cat > "$tmp/m/m_pretty.mlir" <<'EOM'
func.func private @one() -> tensor<i32> {
  %c = stablehlo.constant dense<1> : tensor<i32>
  func.return %c : tensor<i32>
}
func.func @adds() {
  %a = func.call @one() : () -> tensor<i32>
  %r = stablehlo.add %a, %a : tensor<i32>
  check.expect_eq_const %r, dense<2> : tensor<i32>
  func.return
}
func.func public @wrong() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  check.expect_eq_const %a, dense<3> : tensor<i32>
  func.return
}
EOM
cat > "$tmp/m/m_generic.mlir" <<'EOM'
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "neg"}> ({
    %0 = "stablehlo.constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
    %1 = "stablehlo.negate"(%0) : (tensor<i64>) -> tensor<i64>
    "check.expect_eq_const"(%1) <{value = dense<-4> : tensor<i64>}> : (tensor<i64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "sub"}> ({
    %0 = "stablehlo.constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
    %1 = "stablehlo.subtract"(%0, %0) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "check.expect_eq_const"(%1) <{value = dense<0> : tensor<i64>}> : (tensor<i64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
EOM
# A generic-form @main with parameters (SHerLOC's copies of the dynamic/
# programs): its function_type does not start with '()', so it runs on
# generated inputs like the pretty h_params.mlir; without --random-inputs it
# would fail for want of an input.
cat > "$tmp/m/m_generic_params.mlir" <<'EOM'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<i64>, tensor<?x2xf32>) -> tensor<?x2xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<i64>, %arg1: tensor<?x2xf32>):
    %0 = "stablehlo.add"(%arg1, %arg1) : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
    "func.return"(%0) : (tensor<?x2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
EOM
sh tools/upstream_triage.sh --plumb "$PLUMB" --list "$tmp/m" > "$tmp/out" 2> "$tmp/err"
has "PASS        ref     $tmp/m/m_generic_params.mlir" "a generic-form @main with parameters runs on generated inputs (ref)"
has "PASS        runtime $tmp/m/m_generic_params.mlir" "a generic-form @main with parameters runs on generated inputs (runtime)"
has "| ref | 3 | 2 | 1 | 0 | 0 | 0 | 3 | 1 | 0 |" "each public function of a module without @main is a case (3 pass, @wrong fails)"
has "| runtime | 3 | 2 | 1 | 0 | 0 | 0 | 3 | 1 | 0 |" "the runtime row counts the same cases"
has "| 1 | ref | FAIL | check failed: check.expect_eq_const |" "the failing function's check is the reason"
has "PASS        ref     $tmp/m/m_generic.mlir" "a generic-form module's functions all pass"

sh tools/upstream_triage.sh --plumb "$PLUMB" "$tmp/nonexistent" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q "is not a folder" "$tmp/err" && ok "a missing folder exits 2 naming it" ||
    fail "a missing folder exits 2 naming it (got $rc)"
sh tools/upstream_triage.sh --plumb "$PLUMB" --timeout soon "$tmp/d" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q "'soon' is not a whole number" "$tmp/err" && ok "a bad --timeout exits 2" ||
    fail "a bad --timeout exits 2 (got $rc)"

finish
