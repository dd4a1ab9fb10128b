#!/bin/sh
# Prints the Markdown tables of docs/testdata-coverage.md's section on
# StableHLO's interpreter tests: every .mlir file of DIR (default
# $STABLEHLO_INTERPRET, else ../shared/stablehlo-interpret) run with
# `plumb run --split-input-file` on the reference and on the runtime, the
# verdicts counted per backend, then the reasons of the unsupported
# verdicts (locations and SSA names dropped), most frequent first.
# usage: sh tools/interpret_coverage.sh [PLUMB [DIR]]
PLUMB=${1:-build/plumb}
DIR=${2:-${STABLEHLO_INTERPRET:-../shared/stablehlo-interpret}}
if [ ! -d "$DIR" ]; then
    echo "interpret_coverage: '$DIR' is not a folder (set STABLEHLO_INTERPRET=DIR)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-icov.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "| backend | files | files without a failure | verdicts | ok | FAILED | unsupported |"
echo "|---|---|---|---|---|---|---|"
for b in ref runtime; do
    files=0 clean=0 p=0 f=0 u=0
    for x in "$DIR"/*.mlir; do
        files=$((files + 1))
        "$PLUMB" run --backend "$b" --split-input-file "$x" > "$tmp/out" 2> /dev/null && clean=$((clean + 1))
        set -- $(tail -n 1 "$tmp/out")
        p=$((p + ${1:-0})) f=$((f + ${3:-0})) u=$((u + ${5:-0}))
        [ "$b" = ref ] && grep -o 'unsupported: .*' "$tmp/out" >> "$tmp/why"
    done
    echo "| $b | $files | $clean | $((p + f + u)) | $p | $f | $u |"
done
echo
echo "| verdicts | unsupported: reason |"
echo "|---|---|"
sed 's/ (line [0-9]*:[0-9]*)//; s/%[A-Za-z0-9_]*//g; s/^unsupported: //; s/ *$//' "$tmp/why" |
    sed 's/\(also rejects it\):.*/\1)/' | sort | uniq -c | sort -k1,1nr -k2 |
    sed 's/^ *\([0-9]*\) \(.*\)$/| \1 | \2 |/'
