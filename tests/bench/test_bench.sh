#!/bin/sh
# Smoke test of the benchmark program (bench/, docs/bench.md): a --quick run
# reports every workload, validated against the reference, and writes valid
# JSON with the fields issue 4 asks for; usage errors exit 2; --perturb (a
# corrupted runtime result) is reported as a mismatch. No timing assertions:
# performance is measured by `make bench`, never in tests.
# JSON is checked with jq (ci/deps.sh installs it). Ends with "N passed, N failed".
BUILD=${BUILD:-build}
BENCH=$BUILD/bench/plumb-bench
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

expect_rc() { # WANT DESCRIPTION CMD...: output in $tmp/out and $tmp/err
    want=$1; what=$2; shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, want $want"; cat "$tmp/out" "$tmp/err"; fi
}

# json_check DESCRIPTION FILE FILTER: the jq FILTER prints one line per
# problem it finds (check(COND; MESSAGE) prints MESSAGE when COND is false);
# the check passes when FILE is valid JSON and nothing is printed.
JQ_DEFS='def check(c; m): if c then empty else m end;
def close(a; b): ((a - b) | fabs) <= 1e-3 * ([(a | fabs), (b | fabs)] | max);'
json_check() {
    if jq -r "$JQ_DEFS $3" "$2" > "$tmp/jq" 2>&1 && [ ! -s "$tmp/jq" ]; then ok; else bad "$1: $(head -n 5 "$tmp/jq")"; fi
}

if [ ! -x "$BENCH" ]; then
    bad "$BENCH is missing (make all builds it)"
    echo "$pass passed, $fail failed"
    exit 1
fi

# usage errors
expect_rc 2 "--threads 0" "$BENCH" --threads 0
grep -q -- "--threads needs a count" "$tmp/err" && ok || bad "--threads 0 message"
expect_rc 2 "unknown workload" "$BENCH" --only nosuch
grep -q "unknown workload 'nosuch'" "$tmp/err" && ok || bad "unknown workload message"
expect_rc 2 "unknown option" "$BENCH" --frobnicate
expect_rc 0 "--help" "$BENCH" --help
grep -q "cache_hit_100" "$tmp/out" && ok || bad "--help lists the workloads"

# the whole quick run: every workload validated, JSON complete
expect_rc 0 "quick run" "$BENCH" --quick --threads 2 --json "$tmp/b.json"
grep -q "^geometric-mean speedup over the reference: [0-9.]*x over 14 validated workloads" "$tmp/out" \
    && ok || bad "geometric-mean line: $(grep geometric "$tmp/out")"
grep -q "^targets (issue 4):" "$tmp/out" && ok || bad "targets section"
json_check "quick run JSON content" "$tmp/b.json" '
  check([.workloads[].name] == ["chain", "softmax", "layer_norm", "sum", "dot_f32", "dot_bf16",
        "mlp_train_step", "attention_block", "compile_mlp_train_step", "compile_attention_block",
        "compile_moe_layer", "cache_hit_100", "cache_hit_baked", "poly_encoder", "gather_rows", "scatter_add_rows",
        "conv3x3_f32", "ew_f8E4M3FN", "ew_bf16", "dot_f8E4M3FN"]; "workloads: \([.workloads[].name])"),
  (.machine as $m | check($m.stream.triad_gb_per_s > 0 and $m.stream.copy_1thread_gb_per_s > 0; "machine.stream: \($m.stream)"),
   check($m.gemm_ref.gflop_per_s > 0 and ($m.gemm_ref.source | type) == "string" and $m.gemm_ref.source != ""; "machine.gemm_ref: \($m.gemm_ref)")),
  check(.threads == 2 and .quick == true; "threads \(.threads), quick \(.quick)"),
  (.workloads[] as $x | $x.name as $n |
   check($x.status == "ok"; "\($n): status \($x.status): \($x.error)"),
   (("reference_seconds", "runtime_seconds", "speedup", "bytes_moved", "gb_per_s",
     "fraction_of_stream", "gflop_per_s", "worst_error_fraction") as $k | check($x | has($k); "\($n): no \($k)")),
   check($x.runtime_seconds != null; "\($n): runtime_seconds is null"),
   (if ($x.kind | IN("memory", "gemm", "program")) then
      check($x.reference_seconds > 0 and $x.runtime_seconds > 0; "\($n): seconds not positive"),
      check(close($x.speedup; $x.reference_seconds / $x.runtime_seconds); "\($n): speedup is not reference/runtime"),
      check(close($x.gb_per_s; $x.bytes_moved / $x.runtime_seconds / 1e9); "\($n): gb_per_s is not bytes/runtime"),
      check($x.worst_error_fraction >= 0 and $x.worst_error_fraction <= 1; "\($n): worst_error_fraction \($x.worst_error_fraction)")
    else empty end),
   (if $x.kind == "memory" then check($x.fraction_of_stream > 0; "\($n): fraction_of_stream") else empty end),
   (if $x.kind == "gemm" then check($x.gflop_per_s > 0 and $x.fraction_of_ref_gemm > 0; "\($n): gemm rates")
    else check($x.gflop_per_s == null; "\($n): gflop_per_s not null") end)),
  ([.workloads[] | {key: .name, value: .}] | from_entries as $w |
   check($w.chain.ns_per_element > 0 and $w.chain.ns_per_element_1thread > 0; "chain: ns_per_element"),
   check($w.compile_moe_layer.compile_seconds > 0; "compile_moe_layer: compile_seconds"),
   check($w.cache_hit_100.direct_run_seconds > 0; "cache_hit_100: direct_run_seconds"),
   check($w.cache_hit_baked.hit_overhead_seconds > 0 and $w.cache_hit_baked.direct_run_seconds > 0
         and ($w.cache_hit_baked.note | test("hit ratio baked/parameter [0-9.]+x")); "cache_hit_baked: \($w.cache_hit_baked.note)"),
   check($w.poly_encoder.poly_static_ratio > 0 and $w.poly_encoder.static_seconds > 0; "poly_encoder: poly_static_ratio")),
  check(.geomean_workloads == 14 and .geomean_speedup > 0; "geomean: \(.geomean_workloads) workloads, \(.geomean_speedup)"),
  check(.targets.baked_hit_ratio > 0; "targets.baked_hit_ratio \(.targets.baked_hit_ratio)"),
  check(.targets.conv_over_gemm_f32 > 0; "targets.conv_over_gemm_f32 \(.targets.conv_over_gemm_f32)")'

# --only and --threads 1: one workload in the JSON
expect_rc 0 "--only sum --threads 1" "$BENCH" --quick --only sum --threads 1 --json "$tmp/s.json"
json_check "--only sum JSON" "$tmp/s.json" \
    'check([.workloads[].name] == ["sum"] and .threads == 1; "workloads \([.workloads[].name]), threads \(.threads)")'

# a corrupted runtime result is a mismatch, and the run fails
expect_rc 1 "--perturb" "$BENCH" --quick --perturb --only chain,softmax,layer_norm,sum,dot_f32,dot_bf16,mlp_train_step,attention_block,poly_encoder,gather_rows,scatter_add_rows,conv3x3_f32,ew_f8E4M3FN,ew_bf16,dot_f8E4M3FN --json "$tmp/p.json"
json_check "--perturb reports every workload as a mismatch" "$tmp/p.json" \
    '(.workloads[] | check(.status == "mismatch" and (.error | type) == "string" and (.error | contains("MISMATCH")); "\(.name): \(.status)")),
     check(.geomean_speedup == null; "geomean_speedup \(.geomean_speedup)")'

# --ops: the per-op table, every cell validated; --perturb makes every cell fail
expect_rc 0 "--ops quick run" "$BENCH" --ops --quick --json "$tmp/ops.json"
for op in abs exponential tanh add divide maximum and shift_right_logical; do
    grep -q "^$op " "$tmp/out" && ok || bad "--ops table has no row for $op"
done
grep -q "FAILED" "$tmp/out" && bad "--ops: a cell failed: $(grep FAILED "$tmp/out" | head -3)" || ok
json_check "--ops JSON content" "$tmp/ops.json" '
  ([.ops[] | "\(.op) \(.type)"]) as $cells |
  check(($cells | any(. == "stablehlo.add bf16")) and ($cells | any(. == "stablehlo.xor i8")); "cells add/bf16 or xor/i8 missing"),
  check(($cells | any(. == "stablehlo.xor f32") | not); "a cell xor/f32"),
  (.ops[] | check(.valid == true; "\(.op) \(.type): not valid"),
   check(.runtime_ns_per_element > 0 and .reference_ns_per_element > 0; "\(.op) \(.type): ns per element"))'
expect_rc 1 "--ops --perturb" "$BENCH" --ops --quick --perturb
grep -q "^add .*FAILED.*FAILED" "$tmp/out" && ok || bad "--ops --perturb: add row not failed: $(grep '^add ' "$tmp/out")"
grep -Eq "^[a-z_]+ .*[0-9]x\)" "$tmp/out" && bad "--ops --perturb: some cell passed: $(grep -E '[0-9]x\)' "$tmp/out" | head -2)" || ok
expect_rc 2 "--ops with --only" "$BENCH" --ops --only chain

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
