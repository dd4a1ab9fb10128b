#!/bin/sh
# plumb certify from the command line: exit codes, the reports (valid JSON
# and XML), the last line, the example backend built out of tree with its
# own Makefile, and rejections of bad plugins. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init certify



last_line_ok() { # the report's last line has the contract's format
    tail -n 1 "$tmp/out" | grep -Eq '^certify: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' && ok || fail "$1: last line: $(tail -n 1 "$tmp/out")"
}

# jq and xmllint: ci/deps.sh installs them.
json_ok() { jq empty "$1" 2>/dev/null && ok || fail "invalid JSON: $1"; }
xml_ok() { xmllint --noout "$1" 2>/dev/null && ok || fail "invalid XML: $1"; }

MINI=$BUILD/backends/minicpu.so
MINI_OPS=add,subtract,multiply,maximum,negate,exponential,broadcast_in_dim

# usage errors are exit 2
expect_exit 2 "unknown op" "$PLUMB" certify --backend ref --ops add,frobnicate
grep -q "unknown op 'frobnicate'" "$tmp/err" && ok || fail "unknown op message"
expect_exit 2 "unknown option" "$PLUMB" certify --backend ref --frobnicate
expect_exit 2 "bad suite" "$PLUMB" certify --backend ref --suite huge
expect_exit 2 "bad shard" "$PLUMB" certify --backend ref --shard 3/3
expect_exit 2 "unknown backend name" "$PLUMB" certify --backend nosuch
expect_exit 2 "missing plugin file" "$PLUMB" certify --backend "$tmp/none.so"
expect_exit 2 "bad TEST_SHARD env" env TEST_SHARD_INDEX=5 TEST_TOTAL_SHARDS=2 "$PLUMB" certify --backend ref --ops add

# the example backend certifies: exit 0, reports valid, last line
expect_exit 0 "example backend certifies" "$PLUMB" certify --backend "$MINI" --ops "$MINI_OPS" --out "$tmp/mini"
last_line_ok "example"
# --ops: every case run passed, but a partial run is no certificate
grep -q "verdict       PARTIAL (ops: .*) — not a certificate: every case run passed" "$tmp/out" && ok || fail "example: verdict missing"
json_ok "$tmp/mini/report.json"
xml_ok "$tmp/mini/report.xml"
cmp -s "$tmp/out" "$tmp/mini/report.txt" && ok || fail "report.txt differs from stdout"
jq -e '.certificate as $c | ([.ops[] | {key: .op, value: .}] | from_entries) as $ops |
    $c.backend == "minicpu" and $c.certified == false and $c.gate_ok == true and $c.scope.complete == false
    and $c.capabilities.ops["stablehlo.add"] == ["f32"]
    and $ops["stablehlo.exponential"].failed == 0 and $ops["stablehlo.exponential"].passed > 0
    and $ops["stablehlo.add"].unsupported > 0
    and .failed == 0 and .passed > 0' "$tmp/mini/report.json" > /dev/null && ok || fail "example JSON content"

# without --ops every other op is reported unsupported, and still exit 0
expect_exit 0 "example, all ops" "$PLUMB" certify --backend "$MINI" -q
last_line_ok "example all ops"
tail -n 1 "$tmp/out" | grep -Eq ' 0 failed, [1-9][0-9]* skipped$' && ok || fail "unclaimed ops not counted as skipped"

# the template builds out of tree with its own Makefile and only the ABI header
mkdir -p "$tmp/tree/include/plumb" "$tmp/tree/minicpu"
cp include/plumb/backend.h "$tmp/tree/include/plumb/"
cp examples/backend/minicpu.c examples/backend/Makefile "$tmp/tree/minicpu/"
if make -s -C "$tmp/tree/minicpu" PLUMB_INCLUDE=../include > "$tmp/err" 2>&1; then ok; else fail "out-of-tree build"; cat "$tmp/err"; fi
expect_exit 0 "out-of-tree build certifies" "$PLUMB" certify --backend "$tmp/tree/minicpu/minicpu.so" --ops add,exponential -q
last_line_ok "out of tree"

# a backend with bad capabilities is rejected (exit 1), naming the problem and the file
expect_exit 1 "bad capabilities" "$PLUMB" certify --backend "$BUILD/plugins/bad_caps.so"
grep -q "bad_caps.so: capabilities name unknown op 'stablehlo.frobnicate'" "$tmp/err" && ok || fail "bad caps message"
expect_exit 1 "wrong major" "$PLUMB" certify --backend "$BUILD/plugins/bad_major.so"
grep -q "major version 99" "$tmp/err" && ok || fail "wrong major message"
last_line_ok "rejected backend"

# a crash fails (exit 1) with the case named and a reproducer, the run goes on
expect_exit 1 "crashing backend" "$PLUMB" certify --backend "$BUILD/plugins/run_crash_one.so" --ops exponential,add --out "$tmp/crash"
last_line_ok "crash"
grep -Eq '^certify: [0-9]+ passed, 1 failed, 0 skipped$' "$tmp/crash/report.txt" && ok || fail "crash: one failure expected"
grep -q "exponential/f32/.*\[crash\] worker died of signal 11" "$tmp/out" && ok || fail "crash: case and reason not named"
ls "$tmp"/crash/repro/*/program.mlir > /dev/null 2>&1 && ok || fail "crash: no reproducer"
json_ok "$tmp/crash/report.json"
xml_ok "$tmp/crash/report.xml"
grep -q '<failure type="crash"' "$tmp/crash/report.xml" && ok || fail "crash: JUnit failure missing"

# sharding through the environment: two shards add up to the whole
expect_exit 0 "shard 0" env TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=2 "$PLUMB" certify --backend ref --ops add -q
a=$(tail -n 1 "$tmp/out" | sed 's/certify: \([0-9]*\) passed.*/\1/')
expect_exit 0 "shard 1" "$PLUMB" certify --backend ref --ops add -q --shard 1/2
b=$(tail -n 1 "$tmp/out" | sed 's/certify: \([0-9]*\) passed.*/\1/')
expect_exit 0 "whole" "$PLUMB" certify --backend ref --ops add -q
w=$(tail -n 1 "$tmp/out" | sed 's/certify: \([0-9]*\) passed.*/\1/')
[ $((a + b)) = "$w" ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && ok || fail "shards $a + $b != $w"

# --limit runs fewer cases than the manifest: not a certificate
expect_exit 1 "manifest shortfall" "$PLUMB" certify --backend ref --ops abs --limit 2
grep -q "manifest" "$tmp/out" && ok || fail "manifest note missing"

finish
