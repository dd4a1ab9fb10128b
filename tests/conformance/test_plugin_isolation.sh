#!/bin/sh
# A plugin can never fake a verdict: whatever it does in whichever call
# (exit(0), _exit(0), a crash, abort(), a hang, printing to stdout, outputs
# that lie), `plumb certify`, `plumb run --backend PATH.so` and
# `plumb exhaustive` end with exit 1 and a message naming the call, and
# certify still prints its last line. Also: run --backend PATH.so runs and
# compares a program on a plugin, naming the failing element's index and
# inputs. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init plugin_isolation
MB=$(plugin misbehave) || { fail "cannot build misbehave.so"; finish; }
FAULT=$(plugin fault_exp_ulp) || { fail "cannot build fault_exp_ulp.so"; finish; }
MINI="$BUILD/backends/minicpu.so"

# ---- certify: the plugin misbehaves while plumb loads it (constructor,
# plumb_backend_get_api, create, capabilities): no case can run; exit 1, the
# call named, the last line printed by plumb.
certify_open() { # $1 = MODE@CALL, $2 = text naming the call
    PLUMB_MISBEHAVE=$1 "$PLUMB" certify --backend "$MB" --ops negate --timeout 2 --out "$tmp/o" \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    last=$(tail -n 1 "$tmp/out")
    if [ "$rc" = 1 ] && grep -q "$2" "$tmp/err" && [ "$last" = "certify: 0 passed, 1 failed, 0 skipped" ]; then
        ok "certify, $1: exit 1, '$2' named, last line printed"
    else
        fail "certify, $1: exit $rc, last line '$last', stderr: $(cat "$tmp/err")"
    fi
}
certify_open exit0@ctor         "exited with status 0 in dlopen (the library's constructors)"
certify_open exit0@get_api      "exited with status 0 in plumb_backend_get_api"
certify_open exit0@create       "exited with status 0 in create"
certify_open exit0@capabilities "exited with status 0 in capabilities"
certify_open _exit0@capabilities "exited with status 0 in capabilities"
certify_open segv@create        "died of signal 11 .* in create"
certify_open abort@capabilities "died of signal 6 .* in capabilities"
certify_open loop@create        "did not finish loading within 2 s (its process was killed in create)"
certify_open stdout@capabilities "capabilities wrote [0-9]* bytes to standard output"
certify_open exit0@destroy      "exited with status 0 in destroy"

# ---- certify: the plugin misbehaves on cases (compile, execute): each case
# fails with the call named; the run goes on and ends with exit 1.
certify_case() { # $1 = MODE@CALL, $2 = text of the failure line
    PLUMB_MISBEHAVE=$1 "$PLUMB" certify --backend "$MB" --ops negate --limit 1 --timeout 2 --out "$tmp/o" \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    last=$(tail -n 1 "$tmp/out")
    if [ "$rc" = 1 ] && grep -q "negate/.*$2" "$tmp/out" && echo "$last" | grep -q "^certify: 0 passed, [1-9][0-9]* failed"; then
        ok "certify, $1: exit 1, the case fails with '$2'"
    else
        fail "certify, $1: exit $rc, last line '$last'"; grep "negate/" "$tmp/out" | head -3
    fi
}
# (exit(0) in a worker: LeakSanitizer, under make asan, may change the status.)
certify_case exit0@compile   "\[crash\] worker exited with status [0-9]* in compile"
certify_case _exit0@execute  "\[crash\] worker exited with status 0 in execute"
certify_case segv@execute    "\[crash\] worker died of signal 11 .* in execute"
certify_case abort@compile   "\[crash\] worker died of signal 6 .* in compile"
certify_case loop@execute    "\[timeout\] timed out after 2 s in execute"
certify_case stdout@execute  "\[error\] .*execute wrote [0-9]* bytes to standard output"
# Outputs that lie: read no byte past a bounded dtype string, report a NULL
# data pointer as what it is, reject a claimed shape before allocating it.
certify_case nonul@execute    "element type is not a NUL-terminated string of at most 15 bytes"
certify_case nulldata@execute "the data pointer is NULL"
certify_case huge@execute     "the backend returned tensor<2147483648xf32>, the program declares"

# --max-bytes bounds what a backend may return before anything is copied:
# the first negate case's 7x13 i8 result is 91 bytes.
"$PLUMB" certify --backend "$MB" --ops negate --limit 1 --max-bytes 16 --out "$tmp/o" > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "negate/.*\[error\] .*output 0: tensor of 91 bytes exceeds the limit of 16 bytes" "$tmp/out"; then
    ok "certify --max-bytes 16: a 91-byte output is refused before it is copied"
else
    fail "certify --max-bytes 16: exit $rc: $(grep negate/ "$tmp/out" | head -2)"
fi

# ---- run --backend PATH.so: the program runs on the plugin in a child.
cat > "$tmp/exp.mlir" <<'EOF'
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.exponential %x : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
EOF
# 1.0000003576278687 is 1 + 3*2^-23 (bits 0x3f800003): fault_exp_ulp adds 2
# ULP to exp of inputs whose bits are 3 mod 8. exp(1 + 3*2^-23) =
# 2.71828280059... rounds to 0x402df858 (computed at 200 bits, outside
# plumb); the fault returns 0x402df85a.
echo 'dense<[[0.5, 1.0], [2.0, 1.0000003576278687]]> : tensor<2x2xf32>' > "$tmp/in.txt"
run_mode() { # $1 = MODE@CALL, $2 = text naming the call
    PLUMB_MISBEHAVE=$1 "$PLUMB" run --timeout 2 --backend "$MB" --input x="$tmp/in.txt" "$tmp/exp.mlir" \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "$2" "$tmp/err" && ! grep -q "certify:" "$tmp/out"; then
        ok "run --backend PATH.so, $1: exit 1, '$2' named"
    else
        fail "run --backend PATH.so, $1: exit $rc, stdout $(cat "$tmp/out"), stderr $(cat "$tmp/err")"
    fi
}
run_mode exit0@ctor        "exited with status 0 in dlopen"
run_mode exit0@create      "exited with status 0 in create"
run_mode _exit0@compile    "exited with status 0 in compile"
run_mode exit0@execute     "exited with status 0 in execute"
run_mode segv@execute      "died of signal 11 .* in execute"
run_mode abort@compile     "died of signal 6 .* in compile"
run_mode loop@execute      "timed out after 2 s: the backend's process was killed in execute"
run_mode stdout@execute    "execute wrote [0-9]* bytes to standard output"
run_mode nonul@execute     "not a NUL-terminated string"
run_mode nulldata@execute  "the data pointer is NULL (16 bytes promised)"
run_mode huge@execute      "returned tensor<2147483648xf32>, the program declares tensor<2x2xf32>"
run_mode exit0@destroy     "exited with status 0 in destroy"

"$PLUMB" run --backend ref --input x="$tmp/in.txt" "$tmp/exp.mlir" > "$tmp/ref.out" 2>&1
if [ -f "$MINI" ]; then
    "$PLUMB" run --backend "$MINI" --input x="$tmp/in.txt" "$tmp/exp.mlir" > "$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/ref.out"; then
        ok "run --backend minicpu.so prints what the reference prints"
    else
        fail "run --backend minicpu.so: exit $rc: $(cat "$tmp/out")"
    fi
    "$PLUMB" run --backend "$MINI" --compare --input x="$tmp/in.txt" "$tmp/exp.mlir" > "$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "^result 0 tensor<2x2xf32>: stablehlo.exponential ulp(1): worst 0 ULP" "$tmp/out"; then
        ok "run --backend minicpu.so --compare: within the bound"
    else
        fail "run --backend minicpu.so --compare: exit $rc: $(cat "$tmp/out")"
    fi
else
    fail "no $MINI (make all builds it)"
fi
"$PLUMB" run --backend "$FAULT" --compare --input x="$tmp/in.txt" "$tmp/exp.mlir" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "EXCEEDS" "$tmp/out" &&
   grep -q "^  result 0 at \[1,1\]: got 0x402df85a ([0-9.]*) want 0x402df858 ([0-9.]*), inputs %x=0x3f800003 (1.00000036)$" "$tmp/out"; then
    ok "run --backend fault_exp_ulp.so --compare: exit 1, result 0 at [1,1] with got, want and the input"
else
    fail "run --backend fault_exp_ulp.so --compare: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
"$PLUMB" run --backend "$FAULT" --input x="$tmp/in.txt" "$tmp/exp.mlir" > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q "^tensor<2x2xf32> dense<" "$tmp/out"; then
    ok "run --backend fault_exp_ulp.so (no --compare) prints the plugin's results"
else
    fail "run --backend fault_exp_ulp.so: exit $rc: $(cat "$tmp/out")"
fi

# ---- certify's failure lines: index, and the inputs of an elementwise op
# (named as in the case's program, whose unary ops read %x).
"$PLUMB" certify --backend "$FAULT" --ops exponential --out "$tmp/f" > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 1 ] &&
   grep -q "exponential/f32/.*\[fail\] output 0 element [0-9]* at \[[0-9,]*\]: got 0x[0-9a-f]* (.*), want 0x[0-9a-f]* (.*); error 2 ulp, bound 1 ulp; inputs %x=0x[0-9a-f]*[3b] (" "$tmp/out"; then
    ok "certify failure line: index, got, want and the input (bits 3 mod 8)"
else
    fail "certify failure line: exit $rc: $(grep exponential/f32 "$tmp/out" | head -3)"
fi

# The reproducer's README replays the case on the backend with --compare,
# from the reproducer's directory, and names the same element.
repro=$(find "$tmp/f" -type d -name 'exponential_f32_*' | sort | head -n 1)
replay=$(sed -n 's/^  plumb run --backend /--backend /p' "$repro/README.txt" 2>/dev/null)
if [ -n "$replay" ]; then
    # shellcheck disable=SC2086 # the README's arguments, split as a shell would
    case $PLUMB in /*) abs=$PLUMB ;; *) abs=$(pwd)/$PLUMB ;; esac
    (cd "$repro" && "$abs" run $replay) > "$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 1 ] && grep -q "^  result 0 at \[[0-9,]*\]: got 0x[0-9a-f]* (.*) want 0x[0-9a-f]* (.*)" "$tmp/out"; then
        ok "the reproducer's README replays the case on the backend and names the element"
    else
        fail "reproducer replay: exit $rc: $(cat "$tmp/out")"
    fi
else
    fail "no 'plumb run --backend' line in $repro/README.txt"
fi

# ---- exhaustive on a plugin that exits: never exit 0.
for m in exit0@create _exit0@execute segv@compile; do
    PLUMB_MISBEHAVE=$m "$PLUMB" exhaustive --op negate --dtype bf16 --backend "$MB" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    call=${m#*@}
    if [ "$rc" = 1 ] && grep -q "in $call" "$tmp/err"; then
        ok "exhaustive, $m: exit 1, '$call' named"
    else
        fail "exhaustive, $m: exit $rc: $(cat "$tmp/out" "$tmp/err")"
    fi
done

finish
