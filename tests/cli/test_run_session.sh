#!/bin/sh
# plumb run through one runtime (cli/run_session.c): several FILEs and
# --repeat compile and run in one process, --explain names every difference
# of each recompile (text and JSON), --stats counts per module and entry,
# the gates (--max-compiles, --error-on-recompile) exit 1 with the
# explanation, and a warm start from the disk cache (PLUMB_CACHE_DIR) is not
# a recompile. The programs are the torch_xla leak of a learning rate and a
# loss scale both baked as constants. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init session

# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
# count FILE TEXT N DESCRIPTION: TEXT occurs on exactly N lines of FILE.
count() {
    n=$(grep -F -c -- "$2" "$1")
    if [ "$n" = "$3" ]; then ok "$4"; else fail "$4 ($n lines with '$2', expected $3)"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# step I: loss scale I024, learning rate 0.00I, both baked
for i in 1 2 3; do
    cat > "$tmp/a$i.mlir" <<EOF2
func.func @main(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %scale = stablehlo.constant dense<${i}024.0> : tensor<4xf32>
  %gs = stablehlo.divide %g, %scale : tensor<4xf32>
  %lr = stablehlo.constant dense<0.00${i}> : tensor<4xf32>
  %step = stablehlo.multiply %gs, %lr : tensor<4xf32>
  %nw = stablehlo.subtract %w, %step : tensor<4xf32>
  return %nw : tensor<4xf32>
}
EOF2
done
echo 'dense<[0.5, 1.0, -2.0, 0.25]> : tensor<4xf32>' > "$tmp/w.txt"
echo 'dense<[1024.0, 2048.0, -512.0, 0.0]> : tensor<4xf32>' > "$tmp/g.txt"

# Three leak steps and the first again: 3 compiles (2 recompiles), 1 hit.
run "$PLUMB" run --random-inputs --stats --explain "$tmp/a1.mlir" "$tmp/a2.mlir" "$tmp/a3.mlir" "$tmp/a1.mlir"
expect_rc "four runs through one runtime succeed" 0
count "$tmp/out" "// " 4 "each run's results are headed by its file"
count "$tmp/err" "recompile of @main" 2 "--explain prints one explanation per recompile"
has "$tmp/err" "2 differences (2 baked_constant)" "both baked constants are counted"
has "$tmp/err" "stablehlo.divide operand 1: constant 1.024000e+03 became 2.024000e+03" "the loss scale is named"
has "$tmp/err" "stablehlo.multiply operand 1: constant 1.000000e-03 became 2.000000e-03" "the learning rate is named"
has "$tmp/err" "a2.mlir:3:" "the explanation points into the file"
has "$tmp/err" "plumb: stats @main: 3 programs, 3 compiles (2 recompiles), 1 cache hits, 0 disk hits" \
    "--stats counts programs, compiles, recompiles and hits"

# Results: w - g / 1024 * 0.001 for step 1, computed by hand: g / 1024 is
# exact (1, 2, -0.5, 0), so the step is exact multiples of f32(0.001), and
# each difference lies far closer to the shortest decimals below than half
# an f32 spacing: [0.5 - 0.001, 1 - 0.002, -2 + 0.0005, 0.25]
run "$PLUMB" run --stats --input w="$tmp/w.txt" --input g="$tmp/g.txt" "$tmp/a1.mlir"
expect_rc "--stats on one file runs it" 0
has "$tmp/out" "tensor<4xf32> dense<[0.499, 0.998, -1.9995, 0.25]>" "the session run computes the step (by hand)"

# JSON: every line parses; the explanation lists both differences.
run "$PLUMB" run --random-inputs --json --stats --explain "$tmp/a1.mlir" "$tmp/a2.mlir"
expect_rc "--json run succeeds" 0
if jq -e . "$tmp/err" > /dev/null 2>&1; then ok "--json writes only JSON objects on stderr"; else fail "--json writes only JSON objects on stderr"; fi
n=$(jq -s '[.[] | select(.differences) | .differences | length] | add' "$tmp/err" 2>/dev/null)
if [ "$n" = 2 ]; then ok "the JSON explanation lists 2 differences"; else fail "the JSON explanation lists 2 differences (got '$n')"; fi
c=$(jq -s '[.[] | select(.causes) | .causes.baked_constant] | add' "$tmp/err" 2>/dev/null)
if [ "$c" = 2 ]; then ok "JSON causes count 2 baked constants"; else fail "JSON causes count 2 baked constants (got '$c')"; fi
r=$(jq -s '[.[] | select(.stats and .stats.entry == null) | .stats.recompiles] | add' "$tmp/err" 2>/dev/null)
if [ "$r" = 1 ]; then ok "JSON stats count 1 recompile"; else fail "JSON stats count 1 recompile (got '$r')"; fi

# Gates: error-on-recompile stops at step 2 with the explanation.
run "$PLUMB" run --random-inputs --error-on-recompile "$tmp/a1.mlir" "$tmp/a2.mlir" "$tmp/a3.mlir"
expect_rc "--error-on-recompile exits 1" 1
has "$tmp/err" "error_on_recompile is set" "the gate says which gate"
has "$tmp/err" "constant 1.000000e-03 became 2.000000e-03" "the gate's message holds the explanation"
count "$tmp/out" "// " 1 "nothing runs after the refused program"
run "$PLUMB" run --random-inputs --max-compiles 2 --repeat 3 "$tmp/a1.mlir" "$tmp/a2.mlir"
expect_rc "--max-compiles 2 allows two programs repeated" 0
count "$tmp/out" "// " 6 "--repeat 3 runs both files three times"
run "$PLUMB" run --random-inputs --max-compiles 2 "$tmp/a1.mlir" "$tmp/a2.mlir" "$tmp/a3.mlir"
expect_rc "--max-compiles 2 refuses a third program" 1
has "$tmp/err" "max_programs_per_entry = 2" "the cap is named"

# Budgets per module: two unrelated named modules, each @main, compile once each.
for m in a b; do
    { echo "module @model_$m {"; cat "$tmp/a1.mlir"; echo "}"; } > "$tmp/m$m.mlir"
done
sed -i 's/subtract/add/' "$tmp/mb.mlir"
run "$PLUMB" run --random-inputs --error-on-recompile --stats "$tmp/ma.mlir" "$tmp/mb.mlir"
expect_rc "two modules' @main are two budgets" 0
has "$tmp/err" "@main (module @model_a): 1 programs, 1 compiles (0 recompiles)" "per-module stats"

# Warm start: the disk cache serves both programs; they are not recompiles.
PLUMB_CACHE_DIR="$tmp/cache" "$PLUMB" run --random-inputs "$tmp/a1.mlir" "$tmp/a2.mlir" > /dev/null 2>&1
PLUMB_CACHE_DIR="$tmp/cache" run "$PLUMB" run --random-inputs --stats --error-on-recompile "$tmp/a1.mlir" "$tmp/a2.mlir"
expect_rc "a warm start passes --error-on-recompile" 0
has "$tmp/err" "2 compiles (0 recompiles), 0 cache hits, 2 disk hits, 0 disk rejects" "disk hits are not recompiles"

# Usage errors.
run "$PLUMB" run --repeat 0 "$tmp/a1.mlir"
expect_rc "--repeat 0 is a usage error" 2
run "$PLUMB" run --compare --stats "$tmp/a1.mlir"
expect_rc "--compare with --stats is a usage error" 2
run "$PLUMB" run --stats "$tmp/a1.mlir"
expect_rc "a parameter without --input or --random-inputs is a usage error" 2
has "$tmp/err" "has no --input (or use --random-inputs)" "the missing input is named"

finish
