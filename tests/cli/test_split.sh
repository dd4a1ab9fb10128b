#!/bin/sh
# plumb run --split-input-file: each '// -----' chunk of a file runs as its
# own module with one verdict line per case (its line in the whole file)
# and a summary "N passed, N failed, N unsupported"; a malformed or failing
# case fails alone; a '// RUN: ... -split-input-file' line implies the
# flag; the entry defaults to @main, else the only public function. Then
# every file of StableHLO's interpreter tests ($STABLEHLO_INTERPRET, else
# $SHARED/stablehlo-interpret) runs with --split-input-file on the
# reference and on the runtime with no FAILED case: each case (or RUN line,
# tests/cli/test_run_lines.sh) passes or is reported "unsupported: <reason>".
# Skipped, with a hint, when that folder is absent.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
. "$(dirname "$0")/lib.sh"
lib_init split
skipped=0
has() { grep -qx -- "$1" "$tmp/out" && ok "$2" || fail "$2: no line '$1'"; }

# Four cases: a passing one (no @main: its only public function runs), a
# failing check, a syntax error on line 14 of the file, an op outside the
# op set. Lines: case 1 at 3, case 2 at 10, case 3 at 14, case 4 at 18.
cat > "$tmp/cases.mlir" <<'EOM'
// cases for plumb run --split-input-file

func.func @adds() {
  %a = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %r = stablehlo.add %a, %a : tensor<2xf32>
  check.expect_eq_const %r, dense<[3.0, 4.0]> : tensor<2xf32>
  func.return
}
// -----
func.func @wrong() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  check.expect_eq_const %a, dense<3> : tensor<i32>
  func.return
}
// -----
func.func @broken() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  %b = stablehlo.add %a, : tensor<i32>
  func.return
}
// -----
func.func @loop() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.all_reduce(%x = %a) : tensor<i32>
   cond { stablehlo.return %x : tensor<i1> } do { stablehlo.return %x : tensor<i32> }
  func.return
}
EOM
# the line numbers above, counted by hand: case 1 @adds at 3, case 2 @wrong
# at 10, case 3's chunk starts at 16, its error is on line 18; case 4 at 22
"$PLUMB" run --split-input-file "$tmp/cases.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 1 ] && ok "a failing case: exit 1" || fail "a failing case: exit $rc, want 1"
has "$tmp/cases.mlir:3: case 1 @adds: ok" "case 1 passes with its only public function as entry"
grep -q "^$tmp/cases.mlir:10: case 2 @wrong: FAILED: 1 check failed$" "$tmp/out" && ok "case 2 fails its check" \
    || fail "case 2 verdict"
grep -q "^$tmp/cases.mlir:16: case 3 @broken: FAILED: .*(line 18:" "$tmp/out" && ok "case 3: syntax error at its line in the file" \
    || fail "case 3 verdict"
grep -q "^$tmp/cases.mlir:18:[0-9]*: error: " "$tmp/err" && ok "case 3's diagnostic names line 18" \
    || fail "case 3 diagnostic line"
grep -q "^$tmp/cases.mlir:22: case 4 @loop: unsupported: .*stablehlo.all_reduce" "$tmp/out" && ok "case 4 unsupported" \
    || fail "case 4 verdict"
[ "$(tail -n 1 "$tmp/out")" = "1 passed, 2 failed, 1 unsupported" ] && ok "summary line" || fail "summary line"

# A RUN line implies the flag; only passing and unsupported cases: exit 0
{ echo '// RUN: stablehlo-translate --interpret -split-input-file %s'; sed -n '2,8p;21,$p' "$tmp/cases.mlir"; } \
    > "$tmp/run.mlir"
"$PLUMB" run "$tmp/run.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok "RUN line: exit 0 with unsupported cases" || fail "RUN line: exit $rc, want 0"
[ "$(tail -n 1 "$tmp/out")" = "1 passed, 0 failed, 1 unsupported" ] && ok "RUN line implies the split" \
    || fail "RUN line summary"

# Without splitting: the only public function is the entry; two are ambiguous
sed -n '3,8p' "$tmp/cases.mlir" > "$tmp/one.mlir"
"$PLUMB" run "$tmp/one.mlir" > "$tmp/out" 2> "$tmp/err" && ok "the only public function runs without --entry" \
    || fail "the only public function"
{ sed -n '3,8p' "$tmp/cases.mlir"; sed -n '10,14p' "$tmp/cases.mlir"; } > "$tmp/two.mlir"
"$PLUMB" run "$tmp/two.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q "has no @main and 2 public functions (use --entry NAME)" "$tmp/err" \
    && ok "two public functions: usage error naming --entry" || fail "two public functions: exit $rc"

# An empty file has no case: exit 1, said on stderr
: > "$tmp/empty.mlir"
"$PLUMB" run --split-input-file "$tmp/empty.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 1 ] && grep -q "holds no test case" "$tmp/err" && ok "no case: exit 1" || fail "no case: exit $rc"
"$PLUMB" run --split-input-file --output-dir "$tmp/o" "$tmp/cases.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && ok "--output-dir with --split-input-file: usage error" || fail "--output-dir with split: exit $rc"

# StableHLO's interpreter tests: no case FAILED (pass or unsupported)
if [ -n "${STABLEHLO_INTERPRET:-}" ] && [ ! -d "$IDIR" ]; then
    : > "$tmp/out"; echo "STABLEHLO_INTERPRET='$IDIR' is not a folder" > "$tmp/err"
    fail "StableHLO interpreter tests"
elif [ ! -d "$IDIR" ]; then
    echo "skipped: StableHLO interpreter test files not found; set STABLEHLO_INTERPRET=DIR (see README)"
    skipped=1
else
    # every file, split, on both backends: each verdict (a case, or a RUN
    # line of a file whose RUN lines give --args or FileCheck) is "ok" or
    # "unsupported: <reason>", and the summary counts no failure
    for b in ref runtime; do
        for f in "$IDIR"/*.mlir; do
            "$PLUMB" run --backend "$b" --split-input-file "$f" > "$tmp/out" 2> "$tmp/err"
            rc=$?
            sed '$d' "$tmp/out" | grep -Ev ': (case [0-9]+( @[^:]*)?|RUN [0-9]+): (ok|unsupported: .+)$' > "$tmp/odd"
            if [ "$rc" = 0 ] && [ ! -s "$tmp/odd" ] &&
               tail -n 1 "$tmp/out" | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ unsupported$'; then
                ok "$b: $(basename "$f"): $(tail -n 1 "$tmp/out")"
            else
                cat "$tmp/odd" >> "$tmp/err"
                fail "$b: $(basename "$f") (exit $rc)"
            fi
        done
    done
fi
finish
