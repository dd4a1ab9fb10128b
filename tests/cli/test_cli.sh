#!/bin/sh
# Tests of the plumb command line: help, version, exit codes, error format,
# fmt (canonical form, in-place rewriting), verify (limits) and ops (the op
# table as text, JSON and Markdown). Run by tests/run.sh with PLUMB set to
# the binary; StableHLO's test files come from STABLEHLO_TESTDATA, else
# $SHARED/stablehlo-testdata (skipped when that is missing). Ends with
# "N passed, N failed, N skipped". JSON is checked with jq (ci/deps.sh).
SHARED=${SHARED:-../shared}
TESTDATA=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
lib_init cli
skipped=0

# run CMD...: runs it with stdout in $tmp/out, stderr in $tmp/err, status in $rc.
# expect_rc DESCRIPTION CODE: checks the status of the last run.

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# ---- fixtures ----------------------------------------------------------------
cat > "$tmp/valid.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# Odd spacing, comments and optional prefixes: fmt has work to do.
cat > "$tmp/messy.mlir" <<'MLIR'
// a comment
module @messy {
  func.func public @main(%arg0 :   tensor<2x3xi32>) -> (tensor<3xi32>) {
    %c = stablehlo.constant   dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
    %1 = multiply %0,   %0 : tensor<3xi32>   // bare op name
    return %1 : tensor<3xi32>
  }
}
MLIR
cat > "$tmp/consts.mlir" <<'MLIR'
func.func @main() -> tensor<2x2xf32> {
  %0 = stablehlo.constant dense<[[1.5, -0.0], [0x7FC00000, 0x7F800000]]> : tensor<2x2xf32>
  %1 = stablehlo.slice %0 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
  %2 = stablehlo.reshape %1 : (tensor<2x1xf32>) -> tensor<2xf32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xf32>) -> tensor<2x2xf32>
  return %3 : tensor<2x2xf32>
}
MLIR
# Line 2 names an op that is not in the table.
cat > "$tmp/bad_parse.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# Parses, but line 2 adds tensors of different shapes (generic form).
cat > "$tmp/bad_verify.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# 1024 x 1024 f32 = 4 MiB per tensor.
cat > "$tmp/big.mlir" <<'MLIR'
func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  return %x : tensor<1024x1024xf32>
}
MLIR
# 5e9 f32 elements = 20 GB, over the default 16 GiB limit.
cat > "$tmp/huge.mlir" <<'MLIR'
func.func @main(%x: tensor<5000000000xf32>) -> tensor<5000000000xf32> {
  return %x : tensor<5000000000xf32>
}
MLIR
# The element count overflows 64 bits.
cat > "$tmp/overflow.mlir" <<'MLIR'
func.func @main(%x: tensor<4294967296x4294967296x2xf32>) -> tensor<4294967296x4294967296x2xf32> {
  return %x : tensor<4294967296x4294967296x2xf32>
}
MLIR

# ---- top level -----------------------------------------------------------------
run "$PLUMB" --version
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "plumb 0.1.0" ]; then
    ok "--version prints 'plumb 0.1.0'"
else
    fail "--version prints 'plumb 0.1.0' (exit $rc, got '$(cat "$tmp/out")')"
fi
want_version=$(sed -n 's/^#define PLUMB_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/plumb/core.h")
if [ "$(cat "$tmp/out")" = "plumb $want_version" ]; then
    ok "--version matches PLUMB_VERSION_STRING in core.h"
else
    fail "--version matches PLUMB_VERSION_STRING ('$want_version')"
fi

run "$PLUMB" --help
commands=$(sed -n '/^commands:$/,/^$/p' "$tmp/out" | awk 'NR > 1 && NF { print $1 }')
if [ "$rc" = 0 ] && [ -n "$commands" ]; then
    ok "--help exits 0 and lists commands ($(echo $commands))"
else
    fail "--help exits 0 and lists commands"
fi
for c in fmt verify ops; do
    if echo "$commands" | grep -qx "$c"; then ok "--help lists '$c'"; else fail "--help lists '$c'"; fi
done
run "$PLUMB" -h
if [ "$rc" = 0 ] && grep -q '^commands:$' "$tmp/out"; then ok "-h prints the usage"; else fail "-h prints the usage"; fi
run "$PLUMB"
if [ "$rc" = 2 ] && grep -q '^commands:$' "$tmp/err"; then
    ok "no arguments: usage on stderr, exit 2"
else
    fail "no arguments: usage on stderr, exit 2 (exit $rc)"
fi

for c in $commands; do
    run "$PLUMB" "$c" --help
    if [ "$rc" = 0 ] && grep -q "^usage: plumb $c" "$tmp/out" && grep -q '^exit codes:' "$tmp/out" \
       && grep -q '^options:' "$tmp/out"; then
        ok "$c --help: usage, options and exit codes, exit 0"
    else
        fail "$c --help: usage, options and exit codes, exit 0 (exit $rc)"
    fi
    run "$PLUMB" "$c" --no-such-option
    if [ "$rc" = 2 ] && grep -q "no-such-option" "$tmp/err"; then
        ok "$c --no-such-option: named on stderr, exit 2"
    else
        fail "$c --no-such-option: named on stderr, exit 2 (exit $rc)"
    fi
done

run "$PLUMB" frobnicate
if [ "$rc" = 2 ] && grep -q "frobnicate" "$tmp/err"; then
    ok "unknown command: named on stderr, exit 2"
else
    fail "unknown command: named on stderr, exit 2 (exit $rc)"
fi
run "$PLUMB" --frobnicate
expect_rc "unknown top-level option exits 2" 2

# ---- exit codes and error format ----------------------------------------------
run "$PLUMB" fmt "$tmp/missing.mlir"
if [ "$rc" = 2 ] && grep -q "missing.mlir" "$tmp/err"; then
    ok "fmt of a missing file: named on stderr, exit 2"
else
    fail "fmt of a missing file: named on stderr, exit 2 (exit $rc)"
fi
run "$PLUMB" verify "$tmp/missing.mlir"
expect_rc "verify of a missing file exits 2" 2
run "$PLUMB" verify "$tmp"
expect_rc "verify of a directory exits 2" 2
run "$PLUMB" fmt
expect_rc "fmt without FILE exits 2" 2
run "$PLUMB" verify
expect_rc "verify without FILE exits 2" 2
run "$PLUMB" fmt "$tmp/valid.mlir" "$tmp/valid.mlir"
expect_rc "fmt with two FILEs exits 2" 2
run "$PLUMB" fmt -i -o "$tmp/x.mlir" "$tmp/valid.mlir"
expect_rc "fmt -i with -o exits 2" 2
run "$PLUMB" fmt -o
expect_rc "fmt -o without a value exits 2" 2
run "$PLUMB" ops extra
expect_rc "ops with an operand exits 2" 2

run "$PLUMB" fmt "$tmp/bad_parse.mlir"
if [ "$rc" = 1 ] && grep -q "^$tmp/bad_parse.mlir:2:[0-9][0-9]*: error: ." "$tmp/err"; then
    ok "fmt of an unparsable program: FILE:2:COL: error: on stderr, exit 1"
else
    fail "fmt of an unparsable program: FILE:2:COL: error: on stderr, exit 1 (exit $rc)"
fi
if [ ! -s "$tmp/out" ]; then ok "fmt prints nothing on stdout on error"; else fail "fmt prints nothing on stdout on error"; fi
run "$PLUMB" verify "$tmp/bad_parse.mlir"
if [ "$rc" = 1 ] && grep -q "^$tmp/bad_parse.mlir:2:[0-9][0-9]*: error: ." "$tmp/err"; then
    ok "verify of an unparsable program: FILE:2:COL: error:, exit 1"
else
    fail "verify of an unparsable program: FILE:2:COL: error:, exit 1 (exit $rc)"
fi
run "$PLUMB" verify "$tmp/bad_verify.mlir"
if [ "$rc" = 1 ] && grep -q "^$tmp/bad_verify.mlir:2:[0-9][0-9]*: error: ." "$tmp/err"; then
    ok "verify of an ill-typed program: FILE:2:COL: error:, exit 1"
else
    fail "verify of an ill-typed program: FILE:2:COL: error:, exit 1 (exit $rc)"
fi
run "$PLUMB" fmt - < "$tmp/bad_parse.mlir"
if [ "$rc" = 1 ] && grep -q "^<stdin>:2:[0-9][0-9]*: error: ." "$tmp/err"; then
    ok "errors in standard input are reported as <stdin>:LINE:COL"
else
    fail "errors in standard input are reported as <stdin>:LINE:COL (exit $rc)"
fi

# ---- verify ----------------------------------------------------------------------
run "$PLUMB" verify "$tmp/valid.mlir" "$tmp/messy.mlir" "$tmp/consts.mlir"
if [ "$rc" = 0 ] && [ "$(grep -c ': ok$' "$tmp/out")" = 3 ] && grep -qx "$tmp/valid.mlir: ok" "$tmp/out"; then
    ok "verify prints 'FILE: ok' per valid file, exit 0"
else
    fail "verify prints 'FILE: ok' per valid file, exit 0 (exit $rc)"
fi
run "$PLUMB" verify -q "$tmp/valid.mlir"
if [ "$rc" = 0 ] && [ ! -s "$tmp/out" ]; then ok "verify -q prints nothing"; else fail "verify -q prints nothing (exit $rc)"; fi
run "$PLUMB" verify "$tmp/bad_verify.mlir" "$tmp/valid.mlir"
if [ "$rc" = 1 ] && grep -qx "$tmp/valid.mlir: ok" "$tmp/out"; then
    ok "verify goes on after an invalid file and exits 1"
else
    fail "verify goes on after an invalid file and exits 1 (exit $rc)"
fi
run "$PLUMB" verify "$tmp/bad_verify.mlir" "$tmp/missing.mlir"
expect_rc "verify with an invalid and an unreadable file exits 2" 2
run "$PLUMB" verify - < "$tmp/valid.mlir"
if [ "$rc" = 0 ] && grep -qx "<stdin>: ok" "$tmp/out"; then ok "verify - reads standard input"; else fail "verify - reads standard input (exit $rc)"; fi

run "$PLUMB" verify "$tmp/big.mlir"
expect_rc "a 4 MiB tensor verifies under the default limit" 0
run "$PLUMB" verify --max-bytes 1Mi "$tmp/big.mlir"
if [ "$rc" = 1 ] && grep -q "^$tmp/big.mlir:1:[0-9]*: error: .*1048576" "$tmp/err"; then
    ok "verify --max-bytes 1Mi rejects a 4 MiB tensor naming the 1048576-byte limit, exit 1"
else
    fail "verify --max-bytes 1Mi rejects a 4 MiB tensor naming the 1048576-byte limit, exit 1 (exit $rc)"
fi
run "$PLUMB" verify --max-bytes=4000K "$tmp/big.mlir"
expect_rc "verify --max-bytes=4000K rejects 4194304 bytes" 1
run "$PLUMB" verify --max-bytes 5M "$tmp/big.mlir"
expect_rc "verify --max-bytes 5M accepts 4194304 bytes" 0
run "$PLUMB" verify --max-bytes 4194304 "$tmp/big.mlir"
expect_rc "verify --max-bytes 4194304 accepts exactly 4194304 bytes" 0
run "$PLUMB" verify --max-bytes 4194303 "$tmp/big.mlir"
expect_rc "verify --max-bytes 4194303 rejects 4194304 bytes" 1
run "$PLUMB" verify "$tmp/huge.mlir"
expect_rc "a 20 GB tensor is rejected under the default 16 GiB limit" 1
run "$PLUMB" verify --max-bytes 32Gi "$tmp/huge.mlir"
expect_rc "a 20 GB tensor verifies with --max-bytes 32Gi" 0
run "$PLUMB" verify --max-bytes 1Ti "$tmp/overflow.mlir"
if [ "$rc" = 1 ] && grep -qi "overflow" "$tmp/err"; then
    ok "a shape whose element count overflows 64 bits is rejected as an overflow"
else
    fail "a shape whose element count overflows 64 bits is rejected as an overflow (exit $rc)"
fi
for bad in 0 -1 12Q 1.5M K 99999999999999999999 20000000000000Ti; do
    run "$PLUMB" verify --max-bytes "$bad" "$tmp/valid.mlir"
    expect_rc "verify --max-bytes '$bad' is a usage error" 2
done

# ---- fmt -------------------------------------------------------------------------
fmt_twice() { # FILE LABEL: fmt of fmt equals fmt
    if "$PLUMB" fmt "$1" > "$tmp/f1" 2> "$tmp/err" && "$PLUMB" fmt "$tmp/f1" > "$tmp/f2" 2> "$tmp/err" \
       && cmp -s "$tmp/f1" "$tmp/f2" && [ -s "$tmp/f1" ]; then
        ok "fmt is idempotent on $2"
    else
        fail "fmt is idempotent on $2"
    fi
}
fmt_twice "$tmp/valid.mlir" valid.mlir
fmt_twice "$tmp/messy.mlir" messy.mlir
fmt_twice "$tmp/consts.mlir" consts.mlir
n_sample=0
if [ -z "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$TESTDATA" ]; then
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=$((skipped + 1))
else
    for name in abs_int8_20_20 reduce_sum_int32_2_3 gather_float32_10_10_10 sort_bool_5_7; do
        f="$TESTDATA/$name.mlir"
        [ -f "$f" ] || continue
        fmt_twice "$f" "$name.mlir"
        n_sample=$((n_sample + 1))
    done
    if [ "$n_sample" -gt 0 ]; then ok "fmt idempotence sampled $n_sample testdata files"; else fail "testdata sample files found in $TESTDATA"; fi
fi

"$PLUMB" fmt "$tmp/messy.mlir" > "$tmp/messy.fmt" 2> /dev/null
run "$PLUMB" verify -q "$tmp/messy.fmt"
expect_rc "the canonical form of a valid program verifies" 0
run "$PLUMB" fmt - < "$tmp/messy.mlir"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/messy.fmt"; then ok "fmt - reads standard input"; else fail "fmt - reads standard input (exit $rc)"; fi
run "$PLUMB" fmt -o "$tmp/messy.out" "$tmp/messy.mlir"
if [ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && cmp -s "$tmp/messy.out" "$tmp/messy.fmt"; then
    ok "fmt -o writes the canonical form to OUT"
else
    fail "fmt -o writes the canonical form to OUT (exit $rc)"
fi

run "$PLUMB" fmt -o "$tmp/no/such/dir/out.mlir" "$tmp/messy.mlir"
expect_rc "fmt -o into a missing directory exits 2" 2
if [ -w /dev/full ]; then
    "$PLUMB" fmt "$tmp/messy.mlir" > /dev/full 2> "$tmp/err"
    rc=$?
    expect_rc "fmt to a full standard output exits 2" 2
    "$PLUMB" ops > /dev/full 2> "$tmp/err"
    rc=$?
    expect_rc "ops to a full standard output exits 2" 2
fi

cp "$tmp/messy.mlir" "$tmp/inplace.mlir"
chmod 640 "$tmp/inplace.mlir"
run "$PLUMB" fmt -i "$tmp/inplace.mlir"
if [ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && cmp -s "$tmp/inplace.mlir" "$tmp/messy.fmt"; then
    ok "fmt -i rewrites the file with its canonical form"
else
    fail "fmt -i rewrites the file with its canonical form (exit $rc)"
fi
if [ "$rc" = 0 ] && ! cmp -s "$tmp/messy.mlir" "$tmp/inplace.mlir" \
   && [ "$(ls -l "$tmp/inplace.mlir" | cut -c1-10)" = "-rw-r-----" ]; then
    ok "fmt -i keeps the permissions of the file it rewrote"
else
    fail "fmt -i keeps the permissions of the file it rewrote ($(ls -l "$tmp/inplace.mlir" | cut -c1-10))"
fi
cp "$tmp/bad_parse.mlir" "$tmp/inplace_bad.mlir"
run "$PLUMB" fmt -i "$tmp/inplace_bad.mlir"
if [ "$rc" = 1 ] && cmp -s "$tmp/inplace_bad.mlir" "$tmp/bad_parse.mlir"; then
    ok "fmt -i leaves the file untouched on a parse error"
else
    fail "fmt -i leaves the file untouched on a parse error (exit $rc)"
fi
if ls "$tmp" | grep -q 'plumb-tmp'; then fail "fmt -i leaves no temporary file"; else ok "fmt -i leaves no temporary file"; fi
cp "$tmp/messy.mlir" "$tmp/target.mlir"
ln -s target.mlir "$tmp/link.mlir"
run "$PLUMB" fmt -i "$tmp/link.mlir"
# plumb never writes through a link at the final name (tests/cli/test_safe_write.sh)
if [ "$rc" = 2 ] && [ -L "$tmp/link.mlir" ] && cmp -s "$tmp/target.mlir" "$tmp/messy.mlir" &&
    grep -q "is a symbolic link" "$tmp/err"; then
    ok "fmt -i on a symlink is refused, link and target untouched"
else
    fail "fmt -i on a symlink is refused, link and target untouched (exit $rc)"
fi

# ---- ops -------------------------------------------------------------------------
n_ops=$(grep -c '^OP(' "$ROOT/ir/ops.def")
run "$PLUMB" ops --json
if [ "$rc" != 0 ]; then
    fail "ops --json exits 0 (exit $rc)"
else
    n_json=$(jq -e 'if type == "array" and all(.[]; (.name | type) == "string" and (.types | type) == "array") then length else error("not an array of ops") end' < "$tmp/out" 2> "$tmp/err")
    if [ "$n_json" = "$n_ops" ]; then ok "ops --json is a JSON array of $n_ops ops (one per row of ir/ops.def)"; else fail "ops --json is a JSON array of $n_ops ops (got '$n_json')"; fi
fi
# the JSON lists what the text table lists: the row's types, complex and the
# small formats the op also runs on
if grep -q '"name": "stablehlo.tanh".*"types": \["f16", "bf16", "f32", "f64", "complex<f32>", "complex<f64>", "f8E4M3FN", [^]]*"f4E2M1FN"\], "agreement": "ulp", "ulp": 2, "ulp_half": 1}' "$tmp/out"; then
    ok "ops --json: tanh takes f16, bf16, f32, f64, complex and the small float formats with bounds 2 and 1 ULP"
else
    fail "ops --json: tanh takes f16, bf16, f32, f64, complex and the small float formats with bounds 2 and 1 ULP"
fi
run "$PLUMB" ops
if [ "$rc" = 0 ] && [ "$(($(wc -l < "$tmp/out") - 1))" = "$n_ops" ]; then
    ok "ops prints a header and $n_ops rows"
else
    fail "ops prints a header and $n_ops rows (exit $rc, $(wc -l < "$tmp/out") lines)"
fi
if grep -q '^stablehlo.reduce  *variadic  *variadic  *reduction .*bound(data)' "$tmp/out"; then
    ok "ops: reduce is variadic, a reduction, with a data-dependent bound"
else
    fail "ops: reduce is variadic, a reduction, with a data-dependent bound"
fi
run "$PLUMB" ops --markdown
if [ "$rc" = 0 ] && [ "$(grep -c '^| `' "$tmp/out")" = "$n_ops" ] && head -n 1 "$tmp/out" | grep -q '^# '; then
    ok "ops --markdown: a title and $n_ops table rows"
else
    fail "ops --markdown: a title and $n_ops table rows (exit $rc)"
fi
if cmp -s "$tmp/out" "$ROOT/docs/ops.md"; then ok "docs/ops.md is up to date"; else fail "docs/ops.md is up to date (run make docs)"; fi
run "$PLUMB" ops --json --markdown
expect_rc "ops --json --markdown exits 2" 2

# ---- run --input: a parameter by SSA name, by %name or by index; an unknown
# name is a usage error that lists the parameters. exp(0) = 1 and exp(1)
# rounds to 2.7182817 in f32 (e = 2.71828182..., f32 neighbours 2.7182817
# and 2.718282).
cat > "$tmp/exp.mlir" <<'EOF2'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.exponential %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
EOF2
echo 'dense<[0.0, 1.0]> : tensor<2xf32>' > "$tmp/in.txt"
for spec in x %x 0; do
    for be in ref runtime; do
        run "$PLUMB" run --backend "$be" --input "$spec=$tmp/in.txt" "$tmp/exp.mlir"
        if [ "$rc" = 0 ] && grep -qx 'tensor<2xf32> dense<\[1.0, 2.7182817\]>' "$tmp/out"; then
            ok "run --backend $be --input $spec=FILE gives exp([0, 1])"
        else
            fail "run --backend $be --input $spec=FILE gives exp([0, 1]) (exit $rc: $(cat "$tmp/out" "$tmp/err"))"
        fi
    done
done
run "$PLUMB" run --input y="$tmp/in.txt" "$tmp/exp.mlir"
if [ "$rc" = 2 ] && grep -q "no parameter 'y' (its parameters: %x (index 0))" "$tmp/err"; then
    ok "run --input with an unknown name: exit 2, the parameters listed"
else
    fail "run --input with an unknown name: exit 2, the parameters listed (exit $rc)"
fi
echo 'dense<[0.0, 1.0, 2.0]> : tensor<3xf32>' > "$tmp/in3.txt"
run "$PLUMB" run --backend runtime --input x="$tmp/in3.txt" "$tmp/exp.mlir"
if [ "$rc" != 0 ] && grep -q 'tensor<3xf32>.*tensor<2xf32>' "$tmp/err"; then
    ok "run --backend runtime: an input of the wrong shape is refused, naming both types"
else
    fail "run --backend runtime: an input of the wrong shape is refused, naming both types (exit $rc)"
fi

# ---- run --output-dir, plugins named without ./, certify -q (issue 10) ------------
printf 'func.func @main() -> tensor<2xf32> {\n  %%0 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/c2.mlir"
run "$PLUMB" run --output-dir "$tmp/od/a/b" "$tmp/c2.mlir"
if [ "$rc" = 0 ] && [ -s "$tmp/od/a/b/result_0.tensor" ]; then
    ok "run --output-dir creates the missing folder and its parents"
else
    fail "run --output-dir creates the missing folder and its parents (exit $rc)"
fi
: > "$tmp/od/plainfile"
run "$PLUMB" run --output-dir "$tmp/od/plainfile/x" "$tmp/c2.mlir"
if [ "$rc" = 2 ] && grep -q "cannot create folder '$tmp/od/plainfile': it exists and is not a folder" "$tmp/err"; then
    ok "run --output-dir under a file: exit 2 naming the file"
else
    fail "run --output-dir under a file: exit 2 naming the file (exit $rc)"
fi
MINI=$(cd "$(dirname "$PLUMB")" && pwd)/backends/minicpu.so
ABS_PLUMB=$(cd "$(dirname "$PLUMB")" && pwd)/$(basename "$PLUMB")
if [ -f "$MINI" ]; then
    mkdir -p "$tmp/here" && cp "$MINI" "$tmp/here/minicpu.so"
    printf 'func.func @main(%%x: tensor<3xf32>) -> tensor<3xf32> {\n  %%0 = stablehlo.add %%x, %%x : tensor<3xf32>\n  return %%0 : tensor<3xf32>\n}\n' > "$tmp/here/add.mlir"
    echo 'dense<[1.0, 2.5, -4.0]> : tensor<3xf32>' > "$tmp/here/x.txt"
    # A bare file name is the file in the current folder, never a search of
    # the library path (which would not find it).
    (cd "$tmp/here" && "$ABS_PLUMB" run --backend minicpu.so --input x=x.txt add.mlir) > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ "$rc" = 0 ] && grep -q 'tensor<3xf32> dense<\[2.0, 5.0, -8.0\]>' "$tmp/out"; then
        ok "run --backend minicpu.so (no ./) loads the file in the current folder"
    else
        fail "run --backend minicpu.so (no ./) loads the file in the current folder (exit $rc: $(cat "$tmp/out"))"
    fi
    (cd "$tmp/here" && "$ABS_PLUMB" certify --backend minicpu.so --ops add -q) > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ "$rc" != 2 ] && ! grep -q "cannot load\|unknown backend" "$tmp/err" && tail -n 1 "$tmp/out" | grep -q '^certify: [1-9][0-9]* passed, 0 failed'; then
        ok "certify --backend minicpu.so (no ./) loads the file in the current folder"
    else
        fail "certify --backend minicpu.so (no ./) loads the file in the current folder (exit $rc)"
    fi
    # --limit leaves the manifest short: exit 1 with no failing case to list,
    # so -q must still say why, in one line on stderr.
    (cd "$tmp/here" && "$ABS_PLUMB" certify --backend minicpu.so --ops add --limit 1 -q) > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ "$rc" = 1 ] && [ "$(grep -c '^plumb certify: ' "$tmp/err")" = 1 ] \
        && grep -q '^plumb certify: .*1 op short of the manifest (stablehlo.add: ' "$tmp/err"; then
        ok "certify -q that exits 1 says why in one line"
    else
        fail "certify -q that exits 1 says why in one line (exit $rc: $(cat "$tmp/err"))"
    fi
else
    fail "the example backend $MINI is built (make all)"
fi

finish
