#!/bin/sh
# plumb run --contract FILE / PLUMB_CONTRACT (docs/contracts.md): the
# grad-create/accumulate pair of scenarios/ passes a contract listing both
# variants and a third program fails it; a baked-learning-rate storm is
# stopped by max-programs; a warm start served from the disk cache passes
# "warmup-runs 0 then no-new-compiles"; a contract that does not parse,
# contradicts itself or names an unknown entry is an error naming the file
# and line; PLUMB_LOG=recompiles:json logs the violation as a JSON object.
# With PLUMB_LOG, the per-entry summary of causes at exit and the
# too-frequent warning, as text and JSON lines.
# Ends with "N passed, N failed".
SC=${SCENARIOS:-scenarios}
. "$(dirname "$0")/lib.sh"
lib_init contract

has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "$PLUMB is not built"
    finish
fi
G=$SC/grad-create-accumulate
L=$SC/baked-learning-rate/leak
cp "$G/leak/1-create.mlir" "$G/leak/2-accumulate.mlir" "$tmp/"

# Variants by file, relative to the contract's folder.
printf '# the grad pair\nmodule * entry main variants 1-create.mlir 2-accumulate.mlir\n' > "$tmp/pair.ct"
run "$PLUMB" run --contract "$tmp/pair.ct" --random-inputs --repeat 3 "$G/leak/1-create.mlir" "$G/leak/2-accumulate.mlir"
expect_rc "the grad-create/accumulate pair passes a contract listing both" 0
run "$PLUMB" run --contract "$tmp/pair.ct" --random-inputs "$G/leak/1-create.mlir" "$G/fix/cycle.mlir"
expect_rc "a third variant fails the contract" 1
has "$tmp/err" "pair.ct:2: @main program key" "the violation names the contract's line"
has "$tmp/err" "is not one of its 2 variants (1-create.mlir = " "and the allowed variants with their keys"
has "$tmp/err" "recompile of @main (program 2)" "and the compile's explanation"

# The same through the environment.
PLUMB_CONTRACT="$tmp/pair.ct" run "$PLUMB" run --random-inputs "$G/leak/1-create.mlir" "$G/fix/cycle.mlir"
expect_rc "PLUMB_CONTRACT applies the contract without --contract" 1

# A storm of baked learning rates stopped at the third program.
printf 'module * entry main max-programs 2\n' > "$tmp/storm.ct"
run "$PLUMB" run --contract "$tmp/storm.ct" --random-inputs "$L/step01.mlir" "$L/step02.mlir" "$L/step03.mlir" "$L/step04.mlir"
expect_rc "max-programs 2 stops a storm" 1
has "$tmp/err" "storm.ct:1: @main would build program 3, max-programs 2" "naming the rule's line and the count"
has "$tmp/err" "baked constant" "with the cause of the recompile"
if grep -q "run 3" "$tmp/out"; then fail "the refused program did not run"; else ok "the refused program did not run"; fi

# Warm start: every program from the disk cache passes a no-new-compiles rule.
mkdir -m 700 "$tmp/cache"
run env PLUMB_CACHE_DIR="$tmp/cache" "$PLUMB" run --random-inputs "$L/step01.mlir" "$L/step02.mlir"
expect_rc "a first run fills the disk cache" 0
printf 'module * entry * warmup-runs 0 then no-new-compiles\n' > "$tmp/warm.ct"
run env PLUMB_CACHE_DIR="$tmp/cache" "$PLUMB" run --contract "$tmp/warm.ct" --stats --random-inputs "$L/step01.mlir" "$L/step02.mlir"
expect_rc "a warm start served from disk passes warmup-runs 0" 0
has "$tmp/err" "2 disk hits" "both programs came from disk"
run env PLUMB_CACHE_DIR="$tmp/cache" "$PLUMB" run --contract "$tmp/warm.ct" --random-inputs "$L/step01.mlir" "$L/step03.mlir"
expect_rc "a program not in the cache fails it" 1
has "$tmp/err" "warm.ct:1: @main compiles after 1 runs (warmup-runs 0 then no-new-compiles)" "naming the warm-up rule"

# Contracts that are wrong: exit 2, file and line.
printf 'module * entry main max-programs 1\nmodule * entry main variants 1-create.mlir 2-accumulate.mlir\n' > "$tmp/contra.ct"
run "$PLUMB" run --contract "$tmp/contra.ct" --random-inputs "$G/leak/1-create.mlir"
expect_rc "a contract that contradicts itself is a usage error" 2
has "$tmp/err" "contra.ct:2: contradicts line 1: max-programs 1 but 2 variants" "naming both lines"
printf '\nmodule * entry main max-programs\n' > "$tmp/syntax.ct"
run "$PLUMB" run --contract "$tmp/syntax.ct" --random-inputs "$G/leak/1-create.mlir"
expect_rc "a contract that does not parse is a usage error" 2
has "$tmp/err" "syntax.ct:2: expected 'module NAME|* [signature HEX] entry NAME|* RULE'" "naming its line"
printf 'module * entry train_step variants 1-create.mlir\n' > "$tmp/unk.ct"
run "$PLUMB" run --contract "$tmp/unk.ct" --random-inputs "$G/leak/1-create.mlir"
expect_rc "a variant file without the rule's entry is a usage error" 2
has "$tmp/err" "unk.ct:1: unknown entry: variant" "naming the line and the entry"
printf 'module trian entry main max-programs 4\n' > "$tmp/typo.ct"
run "$PLUMB" run --contract "$tmp/typo.ct" --random-inputs "$G/leak/1-create.mlir"
expect_rc "a rule no compile matched fails the run" 1
has "$tmp/err" "typo.ct:1: module trian entry main matched no compiled entry" "naming the rule"

# JSON log: the violation is one JSON object.
if command -v jq > /dev/null 2>&1; then
    run env PLUMB_LOG=recompiles:json "$PLUMB" run --contract "$tmp/storm.ct" --random-inputs "$L/step01.mlir" "$L/step02.mlir" "$L/step03.mlir"
    expect_rc "with PLUMB_LOG=recompiles:json the storm still fails" 1
    grep '^{' "$tmp/err" > "$tmp/json"
    if jq -e . "$tmp/json" > /dev/null 2>&1; then ok "every JSON log line parses"; else fail "every JSON log line parses"; fi
    n=$(jq -r 'select(.contract_violation) | .contract_violation' "$tmp/json" | grep -c "storm.ct:1")
    if [ "$n" = 1 ]; then ok "one contract_violation object names the rule"; else fail "contract_violation lines: $n"; fi
    n=$(jq -r 'select(.recompile) | 1' "$tmp/json" | wc -l)
    if [ "$n" = 2 ]; then ok "both recompiles logged as JSON"; else fail "recompile lines: $n, expected 2"; fi
else
    fail "jq is not installed (ci/deps.sh installs it)"
fi

# The per-entry summary at exit (PLUMB_LOG): the seed's 20 baked learning
# rates are 19 recompiles of one cause (docs/scenarios.md: node 2, %lr,
# train.py:41), and recompiles on 3 runs in a row are too frequent.
steps=""
for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20; do steps="$steps $L/step$i.mlir"; done
# shellcheck disable=SC2086
run env PLUMB_LOG=recompiles "$PLUMB" run --random-inputs $steps
expect_rc "the leak runs with PLUMB_LOG=recompiles" 0
has "$tmp/err" "plumb: summary @main: 20 programs, 20 compiles (19 recompiles, 0 disk hits), 20 runs: 19x baked_constant at node 2 (%lr, train.py:41:10)" "the summary counts 19 recompiles of one cause with its source line"
n=$(grep -c "warning: @main: 3 recompiles in its last 10 runs" "$tmp/err")
if [ "$n" = 1 ]; then ok "one too-frequent warning"; else fail "too-frequent warnings: $n, expected 1"; fi
# shellcheck disable=SC2086
run env PLUMB_LOG=recompiles "$PLUMB" run --random-inputs --repeat 20 "$SC/baked-learning-rate/fix/step.mlir"
has "$tmp/err" "plumb: summary @main: 1 programs, 1 compiles (0 recompiles, 0 disk hits), 20 runs" "the fix: one program, no causes"
if grep -q "warning:" "$tmp/err"; then fail "no warning for the fix"; else ok "no warning for the fix"; fi
if command -v jq > /dev/null 2>&1; then
    # shellcheck disable=SC2086
    run env PLUMB_LOG=recompiles:json "$PLUMB" run --random-inputs $steps
    grep '^{' "$tmp/err" > "$tmp/json"
    if [ "$(grep -c . "$tmp/err")" = "$(grep -c . "$tmp/json")" ] && jq -e . "$tmp/json" > /dev/null 2>&1; then
        ok "every log line is a JSON object"
    else
        fail "every log line is a JSON object"
    fi
    s=$(jq -r 'select(.summary) | .summary | "\(.entry) \(.programs) \(.recompiles) \(.causes[0].count) \(.causes[0].class) \(.causes[0].name) \(.causes[0].from)"' "$tmp/json")
    if [ "$s" = "main 20 19 19 baked_constant %lr train.py:41:10" ]; then ok "the JSON summary"; else fail "the JSON summary: '$s'"; fi
    n=$(jq -r 'select(.too_frequent) | .too_frequent.entry' "$tmp/json" | grep -c main)
    if [ "$n" = 1 ]; then ok "one too_frequent object"; else fail "too_frequent objects: $n"; fi
fi

# --stats prints the summary without PLUMB_LOG, as JSON with --json.
# shellcheck disable=SC2086
run "$PLUMB" run --stats --random-inputs $steps
has "$tmp/err" "plumb: summary @main: 20 programs, 20 compiles (19 recompiles, 0 disk hits), 20 runs: 19x baked_constant at node 2" "--stats prints the summary"
if command -v jq > /dev/null 2>&1; then
    # shellcheck disable=SC2086
    run "$PLUMB" run --stats --json --random-inputs $steps
    n=$(jq -r 'select(.summary) | .summary.causes[0].count' "$tmp/err" 2>/dev/null)
    if [ "$n" = 19 ]; then ok "--stats --json: the summary as JSON"; else fail "--stats --json summary count '$n'"; fi
fi

# Two different models under one @name: a rule by name says once that
# they share its budget; rules pinned by signature keep them apart and
# refuse a third. The signatures (docs/contracts.md) are taken from the
# warning of the first run, then pinned.
cat > "$tmp/net-a.mlir" <<'EOF_A'
module @net {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = stablehlo.add %x, %x : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
EOF_A
sed -e 's/tensor<4xf32>/tensor<2x2xi32>/g' "$tmp/net-a.mlir" > "$tmp/net-b.mlir"
sed -e 's/tensor<4xf32>/tensor<8xf64>/g' "$tmp/net-a.mlir" > "$tmp/net-c.mlir"
printf 'module net entry main max-programs 3\n' > "$tmp/net.ct"
run "$PLUMB" run --contract "$tmp/net.ct" --random-inputs "$tmp/net-a.mlir" "$tmp/net-b.mlir" "$tmp/net-a.mlir"
expect_rc "two models under one name pass a rule by name" 0
has "$tmp/err" "plumb: warning: contract $tmp/net.ct:1: module net entry main now has signature" "the shared budget is said"
n=$(grep -c "now has signature" "$tmp/err")
if [ "$n" = 1 ]; then ok "said once"; else fail "the shared-budget warning $n times"; fi
sig_b=$(sed -n 's/.*now has signature \([0-9a-f]*\), its first program \([0-9a-f]*\).*/\1/p' "$tmp/err")
sig_a=$(sed -n 's/.*now has signature \([0-9a-f]*\), its first program \([0-9a-f]*\).*/\2/p' "$tmp/err")
printf 'module net signature %s entry main max-programs 1\nmodule net signature %s entry main max-programs 1\n' \
    "$sig_a" "$sig_b" > "$tmp/pinned.ct"
run "$PLUMB" run --contract "$tmp/pinned.ct" --random-inputs "$tmp/net-a.mlir" "$tmp/net-b.mlir"
expect_rc "pinned signatures: each model on its own budget" 0
if [ -s "$tmp/err" ]; then fail "pinned run printed: $(head -n 1 "$tmp/err")"; else ok "pinned run is quiet"; fi
run "$PLUMB" run --contract "$tmp/pinned.ct" --random-inputs "$tmp/net-a.mlir" "$tmp/net-c.mlir"
expect_rc "a third model under the pinned name fails" 1
has "$tmp/err" "pinned.ct:1: net/@main has module signature" "the refusal names the rule"
has "$tmp/err" "another module under the same @name" "and why"

# --help lists the option.
run "$PLUMB" run --help
has "$tmp/out" "--contract FILE" "plumb run --help lists --contract"
finish
