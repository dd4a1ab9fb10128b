#!/bin/sh
# Smoke test of the broad suite (plumb-bench --suite broad, docs/bench.md):
# two light workloads run, validate against the reference and report their
# figures consistently in the JSON (the floor fraction and the ratio to
# numpy recomputed from the times and bytes; numpy's column null exactly
# when the text says numpy is not available); unknown workload names and
# options out of place exit 2. Asserts no timing. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
BENCH=$BUILD/bench/plumb-bench
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-broad.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; sed 's/^/    /' "$tmp/err" | tail -n 5; }
run() { "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }
expect_rc() { if [ "$rc" = "$2" ]; then ok "$1"; else bad "$1 (exit $rc, expected $2)"; fi; }
jq_true() {
    if jq -e "$2" "$1" > /dev/null 2>&1; then ok "$3"; else bad "$3 (jq '$2')"; fi
}

if [ ! -x "$BENCH" ]; then
    bad "the bench program '$BENCH' exists (make all builds it)"
    echo "$pass passed, $fail failed"
    exit 1
fi

run "$BENCH" --suite broad --quick --threads 1 --broad-only batched_gemm,softmax_f32 --json "$tmp/b.json"
expect_rc "two broad workloads run and validate" 0
jq_true "$tmp/b.json" '.suite == "broad" and .threads == 1 and .triad_gb_per_s > 0 and .gemm_gflops > 0' \
    "the JSON names the suite and this run's floors"
jq_true "$tmp/b.json" '[.workloads[].name] == ["softmax_f32", "batched_gemm"]' "exactly the workloads asked for, in table order"
jq_true "$tmp/b.json" 'all(.workloads[]; .valid and .timed and .runtime_median_seconds > 0 and .runs >= 5 and .bytes > 0)' \
    "each validated, ran at least 5 times and moved bytes"
jq_true "$tmp/b.json" '. as $r | all(.workloads[] | select(.floor == "stream");
    ((.bytes / .runtime_median_seconds / 1e9 / $r.triad_gb_per_s) - .fraction_of_floor | fabs) <= 1e-4 * .fraction_of_floor)' \
    "softmax's floor fraction is its GB/s over the triad"
# 64 batches of 128x64 . 64x128: 2 * 64 * 128 * 128 * 64 flops
jq_true "$tmp/b.json" '. as $r | all(.workloads[] | select(.floor == "gemm");
    ((134217728 / .runtime_median_seconds / 1e9 / $r.gemm_gflops) - .fraction_of_floor | fabs) <= 1e-4 * .fraction_of_floor)' \
    "the GEMM's floor fraction is its GFLOP/s over the sgemm rate"
if jq -e '.numpy' "$tmp/b.json" > /dev/null 2>&1; then
    jq_true "$tmp/b.json" 'all(.workloads[]; .numpy_seconds > 0 and ((.numpy_seconds / .runtime_median_seconds - .speedup_vs_numpy) | fabs) <= 1e-4 * .speedup_vs_numpy)' \
        "with numpy: each ratio is numpy's time over the runtime's"
    if grep -q "numpy: not available" "$tmp/out"; then bad "numpy ran but the text says it is not available"; else ok "the text does not deny numpy"; fi
else
    jq_true "$tmp/b.json" 'all(.workloads[]; .numpy_seconds == null and .speedup_vs_numpy == null)' "without numpy: no numpy figures"
    if grep -q "numpy: not available" "$tmp/out"; then ok "the text says numpy is not available"; else bad "the text does not say numpy is missing"; fi
fi

# numpy hidden (a numpy package that fails to import, first on the path):
# the column is empty and the text says so.
mkdir -p "$tmp/nonumpy/numpy"
echo 'raise ImportError("hidden by the test")' > "$tmp/nonumpy/numpy/__init__.py"
PYTHONPATH="$tmp/nonumpy" run "$BENCH" --suite broad --quick --threads 1 --broad-only batched_gemm --json "$tmp/n.json"
expect_rc "without numpy the suite still runs" 0
jq_true "$tmp/n.json" '.numpy == false and all(.workloads[]; .numpy_seconds == null and .speedup_vs_numpy == null)' \
    "without numpy: no numpy figures"
if grep -q "numpy: not available" "$tmp/out"; then ok "the text says numpy is not available"; else bad "the text says numpy is not available"; fi

run "$BENCH" --suite broad --quick --broad-only nope
expect_rc "an unknown broad workload exits 2" 2
if grep -q "gather_embed" "$tmp/err"; then ok "the error lists the workloads"; else bad "the error lists the workloads"; fi
run "$BENCH" --suite narrow
expect_rc "an unknown suite exits 2" 2
run "$BENCH" --broad-only softmax_f32
expect_rc "--broad-only without --suite broad exits 2" 2

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
