#!/bin/sh
# Smoke test of the benchmark program (bench/, docs/bench.md): a --quick run
# reports every workload, validated against the reference, and writes valid
# JSON with the fields issue 4 asks for; usage errors exit 2; --perturb (a
# corrupted runtime result) is reported as a mismatch. No timing assertions:
# performance is measured by `make bench`, never in tests.
# Ends with "N passed, N failed".
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
grep -q "^geometric-mean speedup over the reference: [0-9.]*x over 8 validated workloads" "$tmp/out" \
    && ok || bad "geometric-mean line: $(grep geometric "$tmp/out")"
grep -q "^targets (issue 4):" "$tmp/out" && ok || bad "targets section"
python3 - "$tmp/b.json" <<'PY' && ok || bad "quick run JSON content"
import json, math, sys
d = json.load(open(sys.argv[1]))
names = ["chain", "softmax", "layer_norm", "sum", "dot_f32", "dot_bf16", "mlp_train_step",
         "attention_block", "compile_mlp_train_step", "compile_attention_block",
         "compile_moe_layer", "cache_hit_100"]
w = {x["name"]: x for x in d["workloads"]}
assert list(w) == names, list(w)
m = d["machine"]
assert m["stream"]["triad_gb_per_s"] > 0 and m["stream"]["copy_1thread_gb_per_s"] > 0
assert m["gemm_ref"]["gflop_per_s"] > 0 and m["gemm_ref"]["source"]
assert d["threads"] == 2 and d["quick"] is True
for n, x in w.items():
    assert x["status"] == "ok", (n, x["status"], x["error"])
    for k in ["reference_seconds", "runtime_seconds", "speedup", "bytes_moved", "gb_per_s",
              "fraction_of_stream", "gflop_per_s", "worst_error_fraction"]:
        assert k in x, (n, k)
    assert x["runtime_seconds"] is not None, n
    if x["kind"] in ("memory", "gemm", "program"):
        assert x["reference_seconds"] > 0 and x["runtime_seconds"] > 0, n
        assert math.isclose(x["speedup"], x["reference_seconds"] / x["runtime_seconds"], rel_tol=1e-3), n
        assert math.isclose(x["gb_per_s"], x["bytes_moved"] / x["runtime_seconds"] / 1e9, rel_tol=1e-3), n
        assert 0 <= x["worst_error_fraction"] <= 1, n
    if x["kind"] == "memory":
        assert x["fraction_of_stream"] > 0, n
    if x["kind"] == "gemm":
        assert x["gflop_per_s"] > 0 and x["fraction_of_ref_gemm"] > 0, n
    else:
        assert x["gflop_per_s"] is None, n
assert w["chain"]["ns_per_element"] > 0 and w["chain"]["ns_per_element_1thread"] > 0
assert w["compile_moe_layer"]["compile_seconds"] > 0
assert w["cache_hit_100"]["direct_run_seconds"] > 0
assert d["geomean_workloads"] == 8 and d["geomean_speedup"] > 0
PY

# --only and --threads 1: one workload in the JSON
expect_rc 0 "--only sum --threads 1" "$BENCH" --quick --only sum --threads 1 --json "$tmp/s.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["name"] for x in d["workloads"]]==["sum"] and d["threads"]==1' \
    "$tmp/s.json" && ok || bad "--only sum JSON"

# a corrupted runtime result is a mismatch, and the run fails
expect_rc 1 "--perturb" "$BENCH" --quick --perturb --only chain,softmax,layer_norm,sum,dot_f32,dot_bf16,mlp_train_step,attention_block --json "$tmp/p.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(x["status"]=="mismatch" and "MISMATCH" in x["error"] for x in d["workloads"]), [(x["name"],x["status"]) for x in d["workloads"]]; assert d["geomean_speedup"] is None' \
    "$tmp/p.json" && ok || bad "--perturb reports every workload as a mismatch"

# --ops: the per-op table, every cell validated; --perturb makes every cell fail
expect_rc 0 "--ops quick run" "$BENCH" --ops --quick --json "$tmp/ops.json"
for op in abs exponential tanh add divide maximum and shift_right_logical; do
    grep -q "^$op " "$tmp/out" && ok || bad "--ops table has no row for $op"
done
grep -q "FAILED" "$tmp/out" && bad "--ops: a cell failed: $(grep FAILED "$tmp/out" | head -3)" || ok
python3 - "$tmp/ops.json" <<'PY' && ok || bad "--ops JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
cells = {(x["op"], x["type"]): x for x in d["ops"]}
assert ("stablehlo.add", "bf16") in cells and ("stablehlo.xor", "i8") in cells
assert ("stablehlo.xor", "f32") not in cells
for k, x in cells.items():
    assert x["valid"] is True, k
    assert x["runtime_ns_per_element"] > 0 and x["reference_ns_per_element"] > 0, k
PY
expect_rc 1 "--ops --perturb" "$BENCH" --ops --quick --perturb
grep -q "^add .*FAILED.*FAILED" "$tmp/out" && ok || bad "--ops --perturb: add row not failed: $(grep '^add ' "$tmp/out")"
grep -Eq "^[a-z_]+ .*[0-9]x\)" "$tmp/out" && bad "--ops --perturb: some cell passed: $(grep -E '[0-9]x\)' "$tmp/out" | head -2)" || ok
expect_rc 2 "--ops with --only" "$BENCH" --ops --only chain

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
