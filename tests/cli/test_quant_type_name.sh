#!/bin/sh
# A quantized or other dialect element type is refused with its whole name
# and its position. StableHLO's interpreter tests write types such as
# !quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}> (per-axis scales, with a
# comma and braces inside); plumb's message cut the name at 24 characters
# ('!quant.uniform<i8:f32:0,'), which hid the scales the file asked for.
# The wanted texts are the programs' own spellings, written by hand.
. "$(dirname "$0")/lib.sh"
lib_init quant_type_name
need_plumb

# want_name DESC TYPE POSITION: a function taking and returning
# tensor<2xTYPE> is refused, naming TYPE whole (fixed-string match) at
# POSITION (file:line:column of the element type).
want_name() {
    printf 'func.func @main(%%a: tensor<2x%s>) -> tensor<2x%s> {\n  return %%a : tensor<2x%s>\n}\n' "$2" "$2" "$2" > "$tmp/q.mlir"
    run "$PLUMB" verify "$tmp/q.mlir"
    if [ "$rc" != 0 ] && grep -qF -- "unsupported: element type '$2'" "$tmp/err" && grep -qF -- "q.mlir:$3:" "$tmp/err"; then
        ok "$1"
    else
        fail "$1"
    fi
}

# Per-axis scales: braces and commas inside the angle brackets.
want_name "per-axis quantized type named whole" '!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>' 1:30
# Per-tensor scale: one comma, then the tensor's own '>' closes the name.
want_name "per-tensor quantized type named whole" '!quant.uniform<i8:f32, 0.1:-30>' 1:30
# No angle brackets: the name ends at the tensor's '>', not after it.
want_name "bare dialect type ends before the tensor's '>'" '!foo.bar' 1:30

# Nested brackets that never close: the name stops at the end of the line
# or (here) at the first character no type holds,
# (marked with ...), the message stays one line.
printf 'func.func @main(%%a: tensor<2x!quant.uniform<i8<f32) {\n  return\n}\n' > "$tmp/open.mlir"
run "$PLUMB" verify "$tmp/open.mlir"
if [ "$rc" != 0 ] && grep -qF -- "element type '!quant.uniform<i8<f32...'" "$tmp/err" && [ "$(wc -l < "$tmp/err")" -le 2 ]; then
    ok "unclosed type name stops at the line's end"
else
    fail "unclosed type name stops at the line's end"
fi

# An unclosed '<' before the signature's ')' (review5): the name stops at
# the first character no type holds, marked with ..., instead of running on
# to the next '>' (the '->' of the signature).
printf 'func.func @main(%%x: tensor<4x!quant.uniform<) -> tensor<4xf32> {\n' > "$tmp/open2.mlir"
run "$PLUMB" verify "$tmp/open2.mlir"
if [ "$rc" != 0 ] && grep -qF -- "open2.mlir:1:30: error: unsupported: element type '!quant.uniform<...'" "$tmp/err"; then
    ok "unclosed type name stops before ')'"
else
    fail "unclosed type name stops before ')'"
fi

# The interpreter-test form: one split case per type, each refused on both
# backends as unsupported with the type whole; the split file goes on.
cat > "$tmp/split.mlir" <<'P'
func.func @qdq() {
  %c = stablehlo.constant dense<[10, 10]> : tensor<2xi8>
  %q = "stablehlo.bitcast_convert"(%c) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  func.return
}

// -----

func.func @plain() {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  %d = stablehlo.add %c, %c : tensor<2xi8>
  check.expect_eq_const %d, dense<[2, 4]> : tensor<2xi8>
  func.return
}
P
for b in ref runtime; do
    run "$PLUMB" run --backend "$b" --split-input-file "$tmp/split.mlir"
    if grep -qF "case 1 @qdq: unsupported: element type '!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>'" "$tmp/out" "$tmp/err" &&
        grep -qF "(line 3:" "$tmp/out" "$tmp/err" && grep -q "case 2 @plain: ok" "$tmp/out" "$tmp/err"; then
        ok "split case names the type on $b"
    else
        fail "split case names the type on $b"
    fi
done
finish
