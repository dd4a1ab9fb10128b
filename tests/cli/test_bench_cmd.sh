#!/bin/sh
# plumb bench FILE: every figure is present and consistent (min <= median <=
# max, the runs asked for, bytes moved counted by hand from the types below,
# a positive speedup), the agreement with the reference is reported and a
# failing check op makes it a mismatch; --input files, --no-reference,
# --json to a file and to stdout; bad options, inputs and programs are
# errors with the documented exit codes. Never asserts a timing.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init bench-cmd

has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
jq_true() {
    if jq -e "$2" "$1" > /dev/null 2>&1; then ok "$3"; else fail "$3 (jq '$2' on $(basename "$1"))"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
if ! command -v jq > /dev/null 2>&1; then
    fail "jq is installed (ci/deps.sh installs it)"
    finish
fi

# Two 64x32 f32 inputs (8192 bytes each), results 64x32 f32 (8192) and
# 64 f32 (256): 24832 bytes moved.
cat > "$tmp/p.mlir" <<'EOF'
func.func @main(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64xf32>) {
  %0 = stablehlo.multiply %x, %y : tensor<64x32xf32>
  %1 = stablehlo.exponential %0 : tensor<64x32xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64xf32>
  return %1, %2 : tensor<64x32xf32>, tensor<64xf32>
}
EOF

run "$PLUMB" bench --random-inputs 1 --runs 7 --threads 1 "$tmp/p.mlir"
expect_rc "a program that agrees with the reference exits 0" 0
for f in "compile " "first run " "steady state " "bytes moved    24832 " "reference " "speedup " \
         "agreement      match: 2 results, 0 outside the bound" "7 runs"; do
    has "$tmp/out" "$f" "the text names '$f'"
done
has "$tmp/out" "result 0 tensor<64x32xf32>: stablehlo.exponential ulp(" "the exponential is held to its ULP bound as --compare holds it"

run "$PLUMB" bench --random-inputs 1 --runs 9 --threads 1 --json "$tmp/b.json" "$tmp/p.mlir"
expect_rc "--json FILE exits 0" 0
jq_true "$tmp/b.json" '.file and .entry == "main" and .threads == 1' "the JSON names the file, entry and threads"
jq_true "$tmp/b.json" '.compile_seconds > 0 and .first_run_seconds > 0' "compile and first-run times are positive"
jq_true "$tmp/b.json" '.steady.runs == 9' "the steady state ran --runs times"
jq_true "$tmp/b.json" '.steady.min_seconds > 0 and .steady.min_seconds <= .steady.p10_seconds and .steady.p10_seconds <= .steady.median_seconds and .steady.median_seconds <= .steady.p90_seconds and .steady.p90_seconds <= .steady.max_seconds' "min <= p10 <= median <= p90 <= max"
jq_true "$tmp/b.json" '.steady.total_seconds >= .steady.min_seconds * 9' "the total covers every run"
jq_true "$tmp/b.json" '.bytes_moved == 24832 and .bytes_counted == "inputs+outputs"' "bytes moved are the inputs and results once"
jq_true "$tmp/b.json" '. as $j | ($j.gb_per_second - $j.bytes_moved / $j.steady.median_seconds / 1e9) | (if . < 0 then -. else . end) < 1e-6 * $j.gb_per_second' "GB/s is bytes over the median"
jq_true "$tmp/b.json" '.reference.ran and .reference.fraction == 1 and .reference.seconds > 0' "the reference ran on the whole program"
jq_true "$tmp/b.json" '. as $j | ($j.speedup - $j.reference.seconds / $j.steady.median_seconds) | (if . < 0 then -. else . end) < 1e-6 * $j.speedup' "the speedup is reference over median"
jq_true "$tmp/b.json" '.match == true and .results == 2 and .outside_bound == 0 and .worst_fraction_of_bound <= 1' "the results match within their bounds"

# A failing check op: the runtime's and the reference's checks both fail.
cat > "$tmp/c.mlir" <<'EOF'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.add %x, %x : tensor<2xf32>
  check.expect_eq_const %r, dense<[100.0, 200.0]> : tensor<2xf32>
  return %r : tensor<2xf32>
}
EOF
run "$PLUMB" bench --random-inputs 3 --runs 3 --json "$tmp/c.json" "$tmp/c.mlir"
expect_rc "a failing check op exits 1" 1
jq_true "$tmp/c.json" '.match == false and .checks_failed.reference == 1 and .checks_failed.runtime == 1' "a failing check is not a match"

# --input from a tensor file written by plumb run.
cat > "$tmp/k.mlir" <<'EOF'
func.func @main() -> tensor<2xf32> {
  %c = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
EOF
cat > "$tmp/e.mlir" <<'EOF'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.exponential %x : tensor<2xf32>
  return %r : tensor<2xf32>
}
EOF
"$PLUMB" run --output-dir "$tmp/t" "$tmp/k.mlir" > /dev/null 2>&1
run "$PLUMB" bench --input x="$tmp/t/result_0.tensor" --runs 3 --json - "$tmp/e.mlir"
expect_rc "--input NAME=FILE exits 0" 0
jq_true "$tmp/out" '.match == true and .bytes_moved == 16' "--json - writes the JSON on stdout (8 bytes in, 8 out)"
has "$tmp/err" "result 0 tensor<2xf32>: stablehlo.exponential" "with --json - the per-result lines go to stderr"

run "$PLUMB" bench --random-inputs --no-reference --runs 3 --json "$tmp/n.json" "$tmp/p.mlir"
expect_rc "--no-reference exits 0" 0
jq_true "$tmp/n.json" '.reference.ran == false and .speedup == null and .match == null' "--no-reference: no speedup, no agreement"
has "$tmp/out" "skipped (--no-reference)" "the text says the reference was skipped"

# Errors.
run "$PLUMB" bench --runs 3 "$tmp/p.mlir"
expect_rc "missing inputs exit 2" 2
has "$tmp/err" "no --input for parameter" "missing inputs are named"
run "$PLUMB" bench --input nope="$tmp/t/result_0.tensor" "$tmp/e.mlir"
expect_rc "an unknown parameter exits 2" 2
run "$PLUMB" bench --input x="$tmp/missing.tensor" "$tmp/e.mlir"
expect_rc "an unreadable input exits 2" 2
run "$PLUMB" bench --input x="$tmp/t/result_0.tensor" "$tmp/p.mlir"
expect_rc "an input of the wrong type exits 2" 2
run "$PLUMB" bench --random-inputs --runs 0 "$tmp/p.mlir"
expect_rc "--runs 0 exits 2" 2
has "$tmp/err" "--runs" "--runs 0 is named"
run "$PLUMB" bench --random-inputs --threads x "$tmp/p.mlir"
expect_rc "a bad --threads exits 2" 2
run "$PLUMB" bench --random-inputs --ref-timeout -1 "$tmp/p.mlir"
expect_rc "a negative --ref-timeout exits 2" 2
run "$PLUMB" bench --random-inputs "$tmp/p.mlir" "$tmp/e.mlir"
expect_rc "two FILEs exit 2" 2
run "$PLUMB" bench --random-inputs
expect_rc "no FILE exits 2" 2
run "$PLUMB" bench --random-inputs "$tmp/missing.mlir"
expect_rc "an unreadable program exits 2" 2
printf 'func.func @main(%%x: tensor<2xf32>) -> tensor<3xf32> {\n  return %%x : tensor<2xf32>\n}\n' > "$tmp/bad.mlir"
run "$PLUMB" bench --random-inputs "$tmp/bad.mlir"
expect_rc "an invalid program exits 1" 1
run "$PLUMB" bench --random-inputs --entry nope "$tmp/p.mlir"
expect_rc "a missing entry exits 2" 2
has "$tmp/err" "@nope" "the missing entry is named"
run "$PLUMB" bench --random-inputs --runs 3 --json "$tmp/no/such/dir/x.json" "$tmp/p.mlir"
expect_rc "an unwritable --json exits 2" 2
run "$PLUMB" bench --help
expect_rc "--help exits 0" 0
for o in --input --random-inputs --threads --runs --ref-timeout --no-reference --json "exit codes:"; do
    has "$tmp/out" "$o" "--help lists $o"
done

finish
