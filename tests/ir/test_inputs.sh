#!/bin/sh
# Inputs from anything a shell can give, and the limits on reading them:
# tensor files through "-", /dev/stdin, a pipe and a FIFO (read exactly once);
# program files capped while reading (PLUMB_MAX_PROGRAM_BYTES, default 1 GiB),
# a UTF-8 byte-order mark accepted, and a dense<...> literal checked against
# --max-bytes before it is allocated. Run by tests/run.sh with PLUMB set to
# the binary. Ends with "N passed, N failed".
PLUMB=${PLUMB:-build/plumb}
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-inputs.XXXXXX") || exit 1
writer=
trap 'if [ -n "$writer" ]; then kill "$writer" 2>/dev/null; fi; rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [ -s "$tmp/err" ]; then sed 's/^/    stderr: /' "$tmp/err" | head -n 5; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit
}
# check DESCRIPTION CODE [STDOUT-LINE]: the last run exited CODE and, when
# given, printed exactly STDOUT-LINE.
check() {
    if [ "$rc" != "$2" ]; then
        fail "$1 (exit $rc, expected $2)"
    elif [ $# -ge 3 ] && [ "$(cat "$tmp/out")" != "$3" ]; then
        fail "$1 (printed '$(cat "$tmp/out")', expected '$3')"
    else
        ok "$1"
    fi
}
# err_has DESCRIPTION TEXT: the last run's stderr contains TEXT.
err_has() {
    if grep -F -q -- "$2" "$tmp/err"; then ok "$1"; else fail "$1 (stderr lacks '$2')"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

cat > "$tmp/add.mlir" <<'MLIR'
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
MLIR
printf 'dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n' > "$tmp/x.txt"
want='tensor<3xf32> dense<[2.0, 4.0, 6.0]>'

# ---- tensor inputs ----------------------------------------------------------
"$PLUMB" run --input x="$tmp/x.txt" "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: text tensor input from a file" 0 "$want"
# a binary tensor file, made by run itself: [1,2,3] doubled is [2,4,6]
"$PLUMB" run --input x="$tmp/x.txt" --output-dir "$tmp" "$tmp/add.mlir" > /dev/null 2> "$tmp/err"
want2='tensor<3xf32> dense<[4.0, 8.0, 12.0]>'

"$PLUMB" run --input x=- "$tmp/add.mlir" < "$tmp/x.txt" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: --input x=- reads the tensor from standard input" 0 "$want"
"$PLUMB" run --input x=- "$tmp/add.mlir" < "$tmp/result_0.tensor" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: --input x=- reads a binary tensor from standard input" 0 "$want2"
"$PLUMB" run --input x=/dev/stdin "$tmp/add.mlir" < "$tmp/x.txt" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: --input x=/dev/stdin (redirected file)" 0 "$want"
cat "$tmp/x.txt" | "$PLUMB" run --input x=/dev/stdin "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: --input x=/dev/stdin from a pipe (was a false 'bad magic')" 0 "$want"
cat "$tmp/result_0.tensor" | "$PLUMB" run --input x=/dev/stdin "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: a binary tensor through a pipe" 0 "$want2"

# fifo_run SRC: writes SRC into a FIFO in the background and runs plumb on
# it, with a bounded wait (10 s): opening the FIFO twice used to hang, and a
# regression must fail the test, not hang the suite. Sets rc ("hung" then).
fifo_run() {
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo" || { rc=no-fifo; return; }
    cat "$1" > "$tmp/fifo" &
    writer=$!
    "$PLUMB" run --input x="$tmp/fifo" "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err" &
    reader=$!
    i=0
    while kill -0 "$reader" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$reader" 2>/dev/null; then
        kill "$reader" 2>/dev/null
        wait "$reader" 2>/dev/null
        rc=hung
    else
        wait "$reader"
        rc=$?
    fi
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
    writer=
}
fifo_run "$tmp/x.txt"
check "run: --input from a FIFO is read once, without hanging" 0 "$want"
fifo_run "$tmp/result_0.tensor"
check "run: a binary tensor from a FIFO" 0 "$want2"

# An oversized tensor from a pipe is refused by its header, before the payload
# is read (the program's own types fit the limit).
sed 's/3xf32/2xf32/g' "$tmp/add.mlir" > "$tmp/add2.mlir"
"$PLUMB" run --max-bytes 8 --input x=- "$tmp/add2.mlir" < "$tmp/result_0.tensor" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: a binary tensor over --max-bytes from standard input is refused" 2
err_has "run: the refusal names the input and the limit" "<stdin>"
err_has "run: the refusal names the limit" "exceeds the limit of 8 bytes"

# An endless input that is not a tensor file is refused from its first bytes.
timeout 60 "$PLUMB" run --input x=/dev/zero "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run: --input x=/dev/zero is refused from its first bytes, not read to the end" 2
err_has "run: the refusal says bad magic" "bad magic at byte 0"

# ---- program files ------------------------------------------------------------
PLUMB_MAX_PROGRAM_BYTES=100000 "$PLUMB" verify /dev/zero > "$tmp/out" 2> "$tmp/err"; rc=$?
check "verify /dev/zero stops at the program size cap" 2
err_has "the cap error names the file and the cap" "'/dev/zero' is larger than the program size limit of 100000 bytes"
head -c 300000 /dev/zero | PLUMB_MAX_PROGRAM_BYTES=100000 "$PLUMB" verify - > "$tmp/out" 2> "$tmp/err"; rc=$?
check "verify - stops at the program size cap on standard input" 2
err_has "the stdin cap error names the cap" "standard input is larger than the program size limit of 100000 bytes"
PLUMB_MAX_PROGRAM_BYTES=1000 "$PLUMB" verify "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "a program under the cap verifies" 0 "$tmp/add.mlir: ok"
PLUMB_MAX_PROGRAM_BYTES=12abc "$PLUMB" verify "$tmp/add.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "a malformed PLUMB_MAX_PROGRAM_BYTES is ignored" 0 "$tmp/add.mlir: ok"

printf '\357\273\277' > "$tmp/bom.mlir"
cat "$tmp/add.mlir" >> "$tmp/bom.mlir"
"$PLUMB" verify "$tmp/bom.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "a UTF-8 byte-order mark at the start is accepted" 0 "$tmp/bom.mlir: ok"
"$PLUMB" fmt "$tmp/bom.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
"$PLUMB" fmt "$tmp/add.mlir" > "$tmp/add.fmt" 2>> "$tmp/err"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/add.fmt"; then
    ok "fmt drops the byte-order mark"
else
    fail "fmt drops the byte-order mark"
fi

# A 2 GiB literal in a 150-byte file under --max-bytes 1Mi: rejected at the
# literal by the parser (before allocating), not after zeroing 2 GB.
cat > "$tmp/big.mlir" <<'MLIR'
func.func @main() -> tensor<f32> {
  %0 = stablehlo.constant dense<0.0> : tensor<536870912xf32>
  %1 = stablehlo.constant dense<1.0> : tensor<f32>
  return %1 : tensor<f32>
}
MLIR
"$PLUMB" verify --max-bytes 1Mi "$tmp/big.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "verify --max-bytes 1Mi: a 2 GiB literal is invalid" 1
err_has "the literal error names file:line:col and both sizes" \
    "big.mlir:2:40: error: dense literal of type tensor<536870912xf32>: tensor of 2147483648 bytes exceeds the limit of 1048576 bytes"
"$PLUMB" run --max-bytes 1Mi "$tmp/big.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "run --max-bytes 1Mi: the same literal is refused while parsing" 1
err_has "run names the literal" "big.mlir:2:40: error: dense literal"
PLUMB_MAX_BYTES=1048576 "$PLUMB" fmt "$tmp/big.mlir" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "fmt honors PLUMB_MAX_BYTES for literals" 1
err_has "fmt names the literal" "big.mlir:2:40: error: dense literal"

finish
