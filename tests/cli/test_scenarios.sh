#!/bin/sh
# plumb scenarios (cli/cmd_scenarios.c): the seed recompile leaks of
# scenarios/ and their fixes. The compile counts below are written by hand
# from the programs (one compile per distinct program the sequence brings),
# not taken from the command; the causes are checked in the runtime's own
# explanation objects that --json carries. Each fix, given the leaked value
# as its new input, gives the leak's bits (the fix is a fix, not merely
# another program). Planted faults (a fix that compiles twice, a leak whose
# explanation names another cause) must fail.
# scenarios/gen.sh must still write exactly the checked-in programs.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init scenarios

# jqt FILE FILTER DESCRIPTION: the jq filter is true on FILE.
jqt() {
    if [ "$(jq -r "$2" "$1" 2>/dev/null)" = true ]; then ok "$3"; else fail "$3 (jq: $2)"; fi
}
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# The checked-in programs are the generator's output, byte for byte.
sh scenarios/gen.sh "$tmp/gen" > /dev/null 2>&1
if diff -r "$tmp/gen" scenarios -x gen.sh -x README.md > "$tmp/diff" 2>&1; then
    ok "scenarios/gen.sh writes exactly the checked-in programs"
else
    fail "scenarios/gen.sh writes exactly the checked-in programs ($(head -n 3 "$tmp/diff" | tr '\n' ' '))"
fi
# Every program parses and verifies.
run "$PLUMB" verify scenarios/*/leak/*.mlir scenarios/*/fix/*.mlir
expect_rc "every scenario program verifies" 0

run "$PLUMB" scenarios --json
expect_rc "plumb scenarios --json exits 0 (every scenario passes or is a known gap)" 0
cp "$tmp/out" "$tmp/all.json"
jqt "$tmp/all.json" '(.scenarios | length) == 7 and .failed == 0 and .passed + .known_gaps == 7' \
    "seven scenarios, none failed"

# name leak-steps leak-compiles: the fix always compiles once.
while read -r name steps compiles; do
    s=".scenarios[] | select(.name == \"$name\")"
    jqt "$tmp/all.json" "[$s | .leak.compiles == $compiles and .leak.recompiles == $compiles - 1 and .leak.steps == $steps and .leak.cache_hits == $steps - $compiles] == [true]" \
        "$name: the leak compiles $compiles times in $steps steps, the rest are hits"
    jqt "$tmp/all.json" "[$s | .fix.compiles == 1 and .fix.recompiles == 0 and .fix.cache_hits == $steps - 1 and .fix.runs == $steps] == [true]" \
        "$name: the fix compiles once and runs $steps steps"
    jqt "$tmp/all.json" "[$s | .leak.error == null and .fix.error == null] == [true]" "$name: every step ran"
done <<EOF
baked-learning-rate 20 20
moe-overflow-counter 8 8
grad-create-accumulate 8 2
optional-batch-fields 8 4
moe-capacity-drift 10 5
topk-varying-k 10 5
varying-sequence-length 20 20
EOF

# The causes, read from the runtime's explanation objects: every recompile
# of the leak has a difference of the cause.
# name class op words
while read -r name class op words; do
    s=".scenarios[] | select(.name == \"$name\")"
    cond=".class == \"$class\""
    [ "$op" = - ] || cond="$cond and .op == \"$op\""
    words=$(echo "$words" | tr '_' ' ')
    at=""
    [ "$op" = - ] || at=" at $op"
    cond="$cond and (.what | contains(\"$words\"))"
    jqt "$tmp/all.json" "[$s | .leak.explanations | length > 0 and all(.[]; [.differences[] | select($cond)] | length > 0)] == [true]" \
        "$name: every recompile is explained as $class$at ('$words')"
    jqt "$tmp/all.json" "[$s | .status == \"pass\"] == [true]" "$name passes"
done <<EOF
baked-learning-rate baked_constant - (defined_by_node_1)
moe-overflow-counter baked_constant stablehlo.add (defined_by_node_5)
grad-create-accumulate structure stablehlo.add stablehlo.add_added
moe-capacity-drift static_dimension stablehlo.iota dimension_1:
topk-varying-k attribute chlo.top_k attribute_k_
varying-sequence-length entry_signature func.func parameter_0_dimension_0:
optional-batch-fields entry_signature func.func added
EOF
# The learning rate's explanations name the old and new value and the
# front end's line.
jqt "$tmp/all.json" '[.scenarios[] | select(.name == "baked-learning-rate") | .leak.explanations[0].differences[0] | .old == "1.000000e-03" and .new == "2.000000e-03" and .from == "train.py:41:10"] == [true]' \
    "baked-learning-rate: the explanation gives old and new lr and train.py:41:10"
# Optional batch fields: the programs 1-plain, 2-doc-ids, 3-loss-mask and
# 4-both each add one field to their nearest cached program (2 adds doc_ids
# to 1, 3 adds loss_mask to 1, 4 adds loss_mask to 2), so every recompile
# names exactly one added parameter by its name, and the ops after the
# inserted ones are aligned, never reported as rewired or as other ops.
jqt "$tmp/all.json" '[.scenarios[] | select(.name == "optional-batch-fields") | .status == "pass" and .gap == null and (.leak.explanations | length == 3 and all(.[]; [.differences[] | select(.field == "parameter" and (.what | contains("added")))] | length == 1))] == [true]' \
    "optional-batch-fields passes: each recompile names one added parameter"
jqt "$tmp/all.json" '[.scenarios[] | select(.name == "optional-batch-fields") | .leak.explanations[] | .differences[] | select(.field == "parameter") | .name] == ["%doc_ids", "%loss_mask", "%loss_mask"]' \
    "optional-batch-fields: the added parameters are %doc_ids, %loss_mask, %loss_mask"
jqt "$tmp/all.json" '[.scenarios[] | select(.name == "optional-batch-fields") | .leak.explanations[] | .differences[] | select((.what | contains("now reads")) or (.what | contains(" became stablehlo.")) or (.what | contains("parameter count")))] == []' \
    "optional-batch-fields: no positional noise (rewired operands, ops turned into others)"

# A fix computes what the leak computed: the same generated inputs (the
# generator fills a parameter by its index, and the shared ones come first)
# plus the leaked value passed as the new parameter give the same bits.
# same DESCRIPTION LEAK FIX [FIX-OPTIONS...]; $leak_input, when set, is an
# --input value for the leak.
leak_input=
same() {
    desc=$1 leak=$2 fix=$3
    shift 3
    if [ -n "$leak_input" ]; then
        "$PLUMB" run --backend runtime --random-inputs 7 --hex --input "$leak_input" "scenarios/$leak" \
            > "$tmp/leak.out" 2> "$tmp/err"
    else
        "$PLUMB" run --backend runtime --random-inputs 7 --hex "scenarios/$leak" > "$tmp/leak.out" 2> "$tmp/err"
    fi
    r1=$?
    "$PLUMB" run --backend runtime --random-inputs 7 --hex "$@" "scenarios/$fix" > "$tmp/fix.out" 2>> "$tmp/err"
    r2=$?
    if [ "$r1$r2" = 00 ] && [ -s "$tmp/leak.out" ] && cmp -s "$tmp/leak.out" "$tmp/fix.out"; then
        ok "$desc"
    else
        fail "$desc (exit $r1 and $r2; $(head -c 120 "$tmp/leak.out") vs $(head -c 120 "$tmp/fix.out"))"
    fi
}
echo 'dense<0.003> : tensor<f32>' > "$tmp/lr.txt"
same "baked-learning-rate: the fix with lr = 0.003 gives step 3's bits" \
    baked-learning-rate/leak/step03.mlir baked-learning-rate/fix/step.mlir --input "lr=$tmp/lr.txt"
echo 'dense<9> : tensor<i32>' > "$tmp/total.txt"
same "moe-overflow-counter: the fix with total 9 gives step 3's result" \
    moe-overflow-counter/leak/step03.mlir moe-overflow-counter/fix/step.mlir --input "total=$tmp/total.txt"
echo 'dense<3> : tensor<i32>' > "$tmp/k3.txt"
same "topk-varying-k: the clamped top_k with k = 3 gives top_k k = 3's bits" \
    topk-varying-k/leak/2-k3.mlir topk-varying-k/fix/k8.mlir --input "k=$tmp/k3.txt"
same "varying-sequence-length: the bounded '?' at length 12 gives the static length 12's bits" \
    varying-sequence-length/leak/step02-len12.mlir varying-sequence-length/fix/bounded.mlir --dim-size 12
echo 'dense<[0, 1, 1, 0, 2, 2, 0, 3]> : tensor<8xi32>' > "$tmp/doc.txt"
echo 'dense<[1.0, 0.0, 0.5, 1.0, 1.0, 0.25, 0.0, 2.0]> : tensor<8xf32>' > "$tmp/mask.txt"
echo 'dense<true> : tensor<i1>' > "$tmp/yes.txt"
echo 'dense<false> : tensor<i1>' > "$tmp/no.txt"
same "optional-batch-fields: the canonical batch without fields gives the plain batch's result" \
    optional-batch-fields/leak/1-plain.mlir optional-batch-fields/fix/canonical.mlir \
    --input "doc_ids=$tmp/doc.txt" --input "has_doc_ids=$tmp/no.txt" \
    --input "loss_mask=$tmp/mask.txt" --input "has_loss_mask=$tmp/no.txt"
leak_input="doc_ids=$tmp/doc.txt"
same "optional-batch-fields: the canonical batch with doc_ids only gives that batch's result" \
    optional-batch-fields/leak/2-doc-ids.mlir optional-batch-fields/fix/canonical.mlir \
    --input "doc_ids=$tmp/doc.txt" --input "has_doc_ids=$tmp/yes.txt" \
    --input "loss_mask=$tmp/mask.txt" --input "has_loss_mask=$tmp/no.txt"

# Text output: a line per scenario and the summary.
run "$PLUMB" scenarios --only topk-varying-k --only grad-create-accumulate
expect_rc "--only runs the named scenarios" 0
has "$tmp/out" "topk-varying-k           PASS" "text: the top_k scenario passes"
has "$tmp/out" "attribute k 2 became 3" "text: the runtime's explanation is shown"
has "$tmp/out" "scenarios: 2 passed, 0 failed, 0 known gaps" "text: the summary line counts two"
if grep -q baked-learning-rate "$tmp/out"; then fail "--only skips the others"; else ok "--only skips the others"; fi

run "$PLUMB" scenarios --list
expect_rc "--list exits 0" 0
n=$(grep -c 'steps: leak' "$tmp/out")
if [ "$n" = 7 ]; then ok "--list lists seven scenarios"; else fail "--list lists seven scenarios ($n)"; fi

# Planted faults: a fix that compiles twice, a leak explained by another cause.
cp -r scenarios "$tmp/bad"
cp scenarios/baked-learning-rate/leak/step01.mlir scenarios/baked-learning-rate/leak/step02.mlir \
    "$tmp/bad/baked-learning-rate/fix/"
rm "$tmp/bad/baked-learning-rate/fix/step.mlir"
run "$PLUMB" scenarios --dir "$tmp/bad" --only baked-learning-rate --json
expect_rc "a fix that compiles twice fails the run" 1
jqt "$tmp/out" '.scenarios[0].status == "fail" and .scenarios[0].fix.compiles == 2 and .failed == 1' \
    "the fix's two compiles are reported"
rm "$tmp/bad/topk-varying-k/leak/"*.mlir
for i in 01 02 03 04 05; do cp "scenarios/baked-learning-rate/leak/step$i.mlir" "$tmp/bad/topk-varying-k/leak/"; done
run "$PLUMB" scenarios --dir "$tmp/bad" --only topk-varying-k
expect_rc "a leak whose recompiles have another cause fails (counts alone do not pass)" 1
has "$tmp/out" "topk-varying-k           FAIL" "text: the scenario is FAIL"
has "$tmp/out" "0 of 4 recompiles explained so" "text: no recompile had the expected cause"
echo 'func.func @main( {' > "$tmp/bad/moe-overflow-counter/fix/step.mlir"
run "$PLUMB" scenarios --dir "$tmp/bad" --only moe-overflow-counter
expect_rc "a program that does not parse fails the scenario" 1
has "$tmp/out" "error (fix):" "text: the parse error is reported"

# Usage errors.
run "$PLUMB" scenarios --only nosuch
expect_rc "--only with an unknown name is a usage error" 2
has "$tmp/err" "there are: baked-learning-rate" "the error lists the scenarios"
run "$PLUMB" scenarios --backend ref
expect_rc "--backend other than runtime is a usage error" 2
run "$PLUMB" scenarios --dir "$tmp/none"
expect_rc "a missing scenario folder is a usage error" 2
has "$tmp/err" "cannot read the scenario folder" "the error names the folder"
run "$PLUMB" scenarios --help
expect_rc "--help exits 0" 0
has "$tmp/out" "exit codes:" "--help lists the exit codes"

finish
