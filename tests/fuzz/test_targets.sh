#!/bin/sh
# The coverage-guided fuzz targets (fuzz/targets/, docs/fuzzing-targets.md)
# replayed over their seed corpora without clang: every target has a replay
# binary ($BUILD/fuzz/replay/<target>, built by `make tests`) and a corpus
# (fuzz/corpus/<target>/, small); each replay runs every file of its corpus
# through LLVMFuzzerTestOneInput and exits 0, having counted them all (an
# oracle violation or a sanitizer report aborts it). program_diff must reach
# its oracles on the seeds (not only skip them), the replay driver refuses a
# missing corpus, and the committed parse dictionary is what its generator
# prints (every op of ir/ops.def in it). Run by tests/run.sh; ends with
# "N passed, N failed".
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/../cli/lib.sh"
lib_init fuzzt

targets=""
for src in "$ROOT"/fuzz/targets/*.c; do
    t=$(basename "$src" .c)
    case "$t" in target_util|replay_main) ;; *) targets="$targets $t" ;; esac
done
if [ -z "$targets" ]; then
    fail "fuzz/targets/ holds targets"
fi

for t in $targets; do
    bin=$BUILD/fuzz/replay/$t
    corpus=$ROOT/fuzz/corpus/$t
    if [ ! -x "$bin" ]; then
        fail "$t: replay binary $bin exists (make tests builds it)"
        continue
    fi
    files=$(find "$corpus" -maxdepth 1 -type f ! -name '.*' 2> /dev/null | wc -l | tr -d ' ')
    if [ "$files" -ge 8 ] && [ "$files" -le 100 ]; then
        ok "$t: seed corpus has $files files (8..100)"
    else
        fail "$t: seed corpus $corpus has $files files, expected 8..100"
    fi
    run "$bin" "$corpus"
    if [ "$rc" = 0 ] && grep -qx "replay: $files inputs" "$tmp/out"; then
        ok "$t: every seed replays clean ($files inputs)"
    else
        fail "$t: replay over its corpus (exit $rc, said '$(cat "$tmp/out")', expected 'replay: $files inputs')"
    fi
    # The empty input and a single byte: the smallest inputs a fuzzer starts from.
    : > "$tmp/empty"
    printf '\001' > "$tmp/one"
    run "$bin" "$tmp/empty" "$tmp/one"
    if [ "$rc" = 0 ] && grep -qx "replay: 2 inputs" "$tmp/out"; then ok "$t: empty and 1-byte inputs"; else
        fail "$t: empty and 1-byte inputs (exit $rc)"; fi
done

# program_diff judges its seeds: the conformance checker on single-op
# programs, bitwise comparison on exact multi-op ones.
bin=$BUILD/fuzz/replay/program_diff
if [ -x "$bin" ]; then
    PLUMB_FUZZ_VERBOSE=1 "$bin" "$ROOT/fuzz/corpus/program_diff" > /dev/null 2> "$tmp/verdicts"
    checked=$(grep -c '^program_diff: checked$' "$tmp/verdicts")
    exact=$(grep -c '^program_diff: exact$' "$tmp/verdicts")
    if [ "$checked" -ge 40 ] && [ "$exact" -ge 1 ]; then
        ok "program_diff: oracles reached ($checked checked by the conformance checker, $exact bitwise)"
    else
        fail "program_diff: oracles reached on $checked checker and $exact exact seeds (expected >= 40 and >= 1)"
    fi
fi

# program_diff's structure-aware mutator: 5 mutants per seed (in a chain),
# each run through the target; most must still be programs the oracles
# judge (the mutator keeps only changes that verify).
if [ -x "$bin" ]; then
    files=$(find "$ROOT/fuzz/corpus/program_diff" -maxdepth 1 -type f ! -name '.*' | wc -l | tr -d ' ')
    PLUMB_FUZZ_VERBOSE=1 "$bin" --mutate 5 "$ROOT/fuzz/corpus/program_diff" > "$tmp/out" 2> "$tmp/verdicts"
    rc=$?
    judged=$(grep -c '^program_diff: \(checked\|exact\)$' "$tmp/verdicts")
    if [ "$rc" = 0 ] && grep -qx "replay: $files inputs, $((files * 5)) mutants" "$tmp/out" && \
       [ "$judged" -ge $((files * 2)) ]; then
        ok "program_diff: custom mutator, $((files * 5)) mutants run, $judged of all runs judged by an oracle"
    else
        fail "program_diff: custom mutator (exit $rc, '$(cat "$tmp/out")', $judged judged, expected >= $((files * 2)))"
    fi
fi

# The replay driver: a missing corpus is an error, not an empty pass.
bin=$BUILD/fuzz/replay/parse
if [ -x "$bin" ]; then
    run "$bin" "$tmp/no-such-corpus"
    if [ "$rc" = 2 ] && grep -q "no-such-corpus' does not exist" "$tmp/err"; then
        ok "replay: a missing corpus exits 2 naming it"
    else
        fail "replay: a missing corpus (exit $rc, expected 2)"
    fi
fi

# The parse dictionary is generated and names every op of the table.
sh "$ROOT/fuzz/dict/gen_parse_dict.sh" > "$tmp/parse.dict" 2> "$tmp/err"
if cmp -s "$tmp/parse.dict" "$ROOT/fuzz/dict/parse.dict"; then
    ok "fuzz/dict/parse.dict is current (sh fuzz/dict/gen_parse_dict.sh)"
else
    fail "fuzz/dict/parse.dict is stale: run sh fuzz/dict/gen_parse_dict.sh > fuzz/dict/parse.dict"
fi
missing=0
for name in $(sed -n 's/^OP([A-Z0-9_]*, *"\([a-z._0-9]*\)".*/\1/p' "$ROOT/ir/ops.def"); do
    grep -q "=\"$name\"\$" "$ROOT/fuzz/dict/parse.dict" || { missing=$((missing + 1)); echo "    not in parse.dict: $name"; }
done
if [ "$missing" = 0 ]; then ok "parse.dict names every op of ir/ops.def"; else fail "$missing ops missing from parse.dict"; fi
bad=$(grep -v '^#' "$ROOT"/fuzz/dict/*.dict | grep -v '^[^:]*:$' | grep -vc '^[^:]*:[a-z_0-9]*="\([^"\\]\|\\.\)*"$')
if [ "$bad" = 0 ]; then ok "dictionaries are in libFuzzer's name=\"value\" form"; else fail "$bad dictionary lines are not name=\"value\""; fi

finish
