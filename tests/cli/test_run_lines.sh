#!/bin/sh
# plumb run on StableHLO's interpreter test files as their RUN lines say:
# --args literals as inputs, results in the interpreter's print format,
# CHECK lines matched (FileCheck's CHECK/NEXT/SAME/NOT), 'not' lines that
# must fail, one verdict per RUN line and "N passed, N failed, N
# unsupported"; plumb run --args and --interpreter-format on the command
# line; inline --input literals; NumPy .npy inputs and the .npy files it
# rejects (unsupported dtype, Fortran order, truncated payload) with the
# reason. Expected results are computed by hand (written next to them).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init runlines
has() { grep -qxF -- "$1" "$tmp/out" && ok "$2" || fail "$2: no line '$1'"; }

# StableHLO's api_input_arguments.mlir in form: 1 + 2 = 3 in each element.
cat > "$tmp/args.mlir" <<'EOM'
// RUN: stablehlo-translate %s --interpret --args="[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]" | FileCheck %s

// RUN: not stablehlo-translate %s --interpret --args="not_array" 2>&1 | FileCheck %s --check-prefixes=CHECK-ERROR-NOT-ARRAY
// CHECK-ERROR-NOT-ARRAY: expected array attribute string for args

func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [3, 3]
// CHECK-NEXT: }
EOM
f=$tmp/args.mlir
run "$PLUMB" run "$f"
[ "$rc" = 0 ] && ok "RUN lines: exit 0" || fail "RUN lines: exit $rc, want 0"
has "$f:1: RUN 1: ok" "RUN 1: --args inputs, CHECK/CHECK-NEXT matched"
grep -q "^$f:3: RUN 2: unsupported: error-message check (plumb's messages differ; plumb also rejects it" "$tmp/out" \
    && ok "RUN 2: 'not' line plumb also rejects is unsupported, not passed" || fail "RUN 2 verdict"
has "1 passed, 0 failed, 1 unsupported" "summary"
for b in ref runtime; do
    run "$PLUMB" run --backend "$b" "$f"
    [ "$rc" = 0 ] && grep -qxF "$f:1: RUN 1: ok" "$tmp/out" && ok "RUN lines on --backend $b" || fail "--backend $b"
done

# A wrong CHECK-NEXT (3 + 3 would be 6): FAILED naming the CHECK line; exit 1
sed 's/\[3, 3\]/[6, 6]/' "$f" > "$tmp/wrong.mlir"
run "$PLUMB" run "$tmp/wrong.mlir"
[ "$rc" = 1 ] && ok "failing CHECK: exit 1" || fail "failing CHECK: exit $rc, want 1"
grep -q "^$tmp/wrong.mlir:1: RUN 1: FAILED: line 12: CHECK-NEXT: '\[6, 6\]' not found in the output$" "$tmp/out" \
    && ok "failing CHECK names its line" || fail "failing CHECK verdict"
grep -q "^  \[3, 3\]$" "$tmp/err" && ok "the output is shown on stderr" || fail "output on stderr"

# A CHECK-NEXT that skips a line fails: '}' is two lines after the type
sed '/CHECK-NEXT:   \[3, 3\]/d' "$f" > "$tmp/skip.mlir"
run "$PLUMB" run "$tmp/skip.mlir"
grep -q "RUN 1: FAILED: line 12: CHECK-NEXT: '}' is not on the line after the previous match" "$tmp/out" \
    && ok "CHECK-NEXT on a later line fails" || fail "CHECK-NEXT skipping a line"

# CHECK-NOT: the printed result must not hold '[3, 3]'
sed 's/^\/\/ CHECK-NEXT:   \[3, 3\]/\/\/ CHECK-NOT: [3, 3]/; s/^\/\/ CHECK-NEXT: }/\/\/ CHECK: }/' "$f" > "$tmp/not.mlir"
run "$PLUMB" run "$tmp/not.mlir"
grep -q "RUN 1: FAILED: line 12: CHECK-NOT: '\[3, 3\]' found in the output" "$tmp/out" \
    && ok "CHECK-NOT of a printed value fails" || fail "CHECK-NOT verdict"

# A {{regex}} is not checked: unsupported, never passed
sed 's/^\/\/ CHECK-NEXT:   \[3, 3\]/\/\/ CHECK-NEXT: [{{[0-9]}}, 3]/' "$f" > "$tmp/re.mlir"
run "$PLUMB" run "$tmp/re.mlir"
[ "$rc" = 0 ] && grep -q "RUN 1: unsupported: FileCheck regex on line 12" "$tmp/out" \
    && ok "FileCheck regex reported unsupported" || fail "regex: exit $rc"

# A 'not' line whose program plumb runs without error: FAILED
{ echo '// RUN: not stablehlo-translate %s --interpret --args="[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]"'
  sed -n '6,9p' "$f"; } > "$tmp/noterr.mlir"
run "$PLUMB" run "$tmp/noterr.mlir"
[ "$rc" = 1 ] && grep -q "RUN 1: FAILED: upstream expects an error; plumb ran it" "$tmp/out" \
    && ok "'not' line that runs fails" || fail "'not' line that runs: exit $rc"

# RUN lines plumb does not run: unsupported with the reason
{ echo '// RUN: stablehlo-opt --chlo-legalize-to-stablehlo %s | stablehlo-translate --interpret'
  echo '// RUN: stablehlo-translate %s --interpret --args=@%t/probe1.npy | FileCheck %s'
  sed -n '6,$p' "$f"; } > "$tmp/other.mlir"
run "$PLUMB" run "$tmp/other.mlir"
has "$tmp/other.mlir:1: RUN 1: unsupported: RUN line runs 'stablehlo-opt'" "a stablehlo-opt pipeline is unsupported"
has "$tmp/other.mlir:2: RUN 2: unsupported: --args read from files ('@%t/probe1.npy')" "--args=@file is unsupported"

# Explicit inputs run the file as a program, ignoring its RUN lines
run "$PLUMB" run --args '[dense<[1, 2]> : tensor<2xi32>, dense<[10, 20]> : tensor<2xi32>]' "$f"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "tensor<2xi32> dense<[11, 22]>" ] && ok "plumb run --args" \
    || fail "plumb run --args: exit $rc"
run "$PLUMB" run --interpreter-format --args '[dense<[1, 2]> : tensor<2xi32>, dense<[10, 20]> : tensor<2xi32>]' "$f"
printf 'tensor<2xi32> {\n  [11, 22]\n}\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/want" && ok "--interpreter-format" || fail "--interpreter-format"
run "$PLUMB" run --args 'not_array' "$f"
[ "$rc" = 2 ] && grep -q "\-\-args 'not_array' is not a list '\[dense<...> : tensor<...>, ...\]'" "$tmp/err" \
    && ok "--args not a list: usage error" || fail "--args not a list: exit $rc"
run "$PLUMB" run --args '[4.0 : f32]' "$f"
[ "$rc" = 2 ] && grep -q "\-\-args: element 1 '4.0 : f32' is not a dense literal" "$tmp/err" \
    && ok "--args element not dense: usage error" || fail "--args element: exit $rc"
run "$PLUMB" run --args '[dense<1> : tensor<2xi32>]' "$f"
[ "$rc" = 2 ] && grep -q "\-\-args gives 1 tensor; @main takes 2 parameters" "$tmp/err" \
    && ok "--args count mismatch" || fail "--args count: exit $rc"
run "$PLUMB" run --args '[dense<1> : tensor<2xi32>, dense<1> : tensor<3xi32>]' "$f"
[ "$rc" = 2 ] && ok "--args of the wrong shape: usage error" || fail "--args shape: exit $rc"
run "$PLUMB" run --args '[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]' --input arg0=x "$f"
[ "$rc" = 2 ] && grep -q "does not combine with --input" "$tmp/err" && ok "--args with --input: usage error" \
    || fail "--args with --input: exit $rc"

# Inline literals as --input values
run "$PLUMB" run --input 'arg0=dense<[5, 6]> : tensor<2xi32>' --input 'arg1=dense<1> : tensor<2xi32>' "$f"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "tensor<2xi32> dense<[6, 7]>" ] && ok "--input NAME='dense<...>'" \
    || fail "inline --input: exit $rc"

# ---- .npy inputs -----------------------------------------------------------------
# npy FILE DESCR FORTRAN SHAPE PAYLOAD: a version 1.0 file; PAYLOAD is printf
# octal escapes. The header length is its 16-bit little-endian field.
npy() {
    h="{'descr': '$2', 'fortran_order': $3, 'shape': $4, }"
    n=$((${#h} + 1))
    printf '\223NUMPY\001\000' > "$1"
    printf "\\$(printf %o $((n % 256)))\\$(printf %o $((n / 256)))" >> "$1"
    printf '%s\n' "$h" >> "$1"
    printf "$5" >> "$1"
}
cat > "$tmp/f32.mlir" <<'EOM'
func.func @main(%a: tensor<2xf32>, %b: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %r = stablehlo.add %a, %a : tensor<2xf32>
  return %r, %b : tensor<2xf32>, tensor<2xi32>
}
EOM
# 1.5f = 0x3FC00000, -2.0f = 0xC0000000 (little-endian bytes); doubled: 3, -4
npy "$tmp/a.npy" '<f4' False '(2,)' '\000\000\300\077\000\000\000\300'
# big-endian i4: 7 and -1 (0xFFFFFFFF)
npy "$tmp/b.npy" '>i4' False '(2,)' '\000\000\000\007\377\377\377\377'
run "$PLUMB" run --input "a=$tmp/a.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
printf 'tensor<2xf32> dense<[3.0, -4.0]>\ntensor<2xi32> dense<[7, -1]>\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/want" && ok ".npy inputs (<f4, >i4)" || fail ".npy inputs: exit $rc"
# a unicode-string array (numpy's '<U1', 4 bytes per element): no element type of plumb's
npy "$tmp/u1.npy" '<U1' False '(2,)' '\000\000\000\000\000\000\000\000'
run "$PLUMB" run --input "a=$tmp/u1.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "\.npy file '$tmp/u1.npy': unsupported dtype '<U1'" "$tmp/err" \
    && ok ".npy with an unsupported dtype: rejected with the reason" || fail ".npy dtype: exit $rc"
npy "$tmp/ft.npy" '<f4' True '(2,)' '\000\000\300\077\000\000\000\300'
run "$PLUMB" run --input "a=$tmp/ft.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "\.npy file '$tmp/ft.npy': Fortran order (column-major) is not supported" "$tmp/err" \
    && ok ".npy in Fortran order: rejected with the reason" || fail ".npy Fortran: exit $rc"
npy "$tmp/tr.npy" '<f4' False '(2,)' '\000\000\300\077\000\000'
run "$PLUMB" run --input "a=$tmp/tr.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "\.npy file '$tmp/tr.npy': truncated payload: 6 bytes, the shape (2,) of '<f4' needs 8" "$tmp/err" \
    && ok ".npy with a truncated payload: rejected with the reason" || fail ".npy truncated: exit $rc"
printf 'PLUMBxxxxxx' > "$tmp/notnpy.npy"
run "$PLUMB" run --input "a=$tmp/notnpy.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "not a NumPy file" "$tmp/err" && ok "a .npy without the magic: rejected" \
    || fail ".npy magic: exit $rc"
npy "$tmp/s.npy" '<f4' False '(3,)' '\000\000\300\077\000\000\000\300\000\000\000\000'
run "$PLUMB" run --input "a=$tmp/s.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && ok ".npy of the wrong shape: usage error" || fail ".npy shape: exit $rc"

# --npy writes the results as .npy files that read back as inputs: the
# doubled 1.5, -2.0 (3, -4) and the i4 7, -1, byte for byte as written
# by hand above for little-endian <f4 and (after the header) <i4
run "$PLUMB" run --output-dir "$tmp/o" --npy --input "a=$tmp/a.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 0 ] && [ -f "$tmp/o/result_0.npy" ] && [ -f "$tmp/o/result_1.npy" ] && ok "--output-dir --npy" \
    || fail "--output-dir --npy: exit $rc"
[ "$(head -c 8 "$tmp/o/result_0.npy" | od -An -c | tr -s ' ')" = " 223 N U M P Y 001 \0" ] \
    && ok "result .npy: magic and version 1.0" || fail "result .npy magic"
[ $(( $(wc -c < "$tmp/o/result_0.npy") % 64 )) = 8 ] && ok "result .npy: header padded to 64 bytes" \
    || fail "result .npy size $(wc -c < "$tmp/o/result_0.npy")"
[ "$(tail -c 8 "$tmp/o/result_0.npy" | od -An -tx1 | tr -d ' ')" = "00004040000080c0" ] \
    && ok "result .npy payload: 3.0f, -4.0f little-endian" || fail "result .npy payload"
run "$PLUMB" run --input "a=$tmp/o/result_0.npy" --input "b=$tmp/o/result_1.npy" "$tmp/f32.mlir"
printf 'tensor<2xf32> dense<[6.0, -8.0]>\ntensor<2xi32> dense<[7, -1]>\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/want" && ok "result .npy files read back as inputs" \
    || fail "result .npy read back: exit $rc"
# --args @A.npy,@B.npy (one file per parameter) and @FILE (the list in a file)
run "$PLUMB" run --args "@$tmp/a.npy,@$tmp/b.npy" "$tmp/f32.mlir"
printf 'tensor<2xf32> dense<[3.0, -4.0]>\ntensor<2xi32> dense<[7, -1]>\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/want" && ok "--args @A.npy,@B.npy" || fail "--args npy files: exit $rc"
echo '[dense<[0.25, 1.0]> : tensor<2xf32>, dense<[1, 2]> : tensor<2xi32>]' > "$tmp/list.txt"
run "$PLUMB" run --args "@$tmp/list.txt" "$tmp/f32.mlir"
printf 'tensor<2xf32> dense<[0.5, 2.0]>\ntensor<2xi32> dense<[1, 2]>\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/want" && ok "--args @FILE" || fail "--args @FILE: exit $rc"
run "$PLUMB" run --args "@$tmp/list.txt,@$tmp/a.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "\.npy files and other files do not mix" "$tmp/err" && ok "--args mixing .npy and other files" \
    || fail "--args mixed: exit $rc"
run "$PLUMB" run --args "@$tmp/missing.npy,@$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "\.npy file '$tmp/missing.npy': cannot open" "$tmp/err" && ok "--args with a missing .npy" \
    || fail "--args missing npy: exit $rc"
echo "@$tmp/list.txt" > "$tmp/loop.txt"
run "$PLUMB" run --args "@$tmp/loop.txt" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "names another file" "$tmp/err" && ok "--args file naming another file" \
    || fail "--args @@: exit $rc"

run "$PLUMB" run --npy --input "a=$tmp/a.npy" --input "b=$tmp/b.npy" "$tmp/f32.mlir"
[ "$rc" = 2 ] && grep -q "it needs --output-dir DIR" "$tmp/err" && ok "--npy without --output-dir: usage error" \
    || fail "--npy alone: exit $rc"

finish
