#!/bin/sh
# Runs every .mlir file under DIR (StableHLO testdata programs, interpreter
# tests, anything plumb has never seen) on the reference and on the runtime
# and prints a table of verdicts per backend and of the reasons of every
# non-pass, most frequent first, so that a new set of files is triaged in one
# command instead of file by file.
#
# usage: sh tools/upstream_triage.sh [--json] [--list] [--plumb PATH]
#                                    [--timeout SECONDS] DIR
#
# A file holding a '// -----' line or a RUN line with split-input-file runs
# with --split-input-file (its cases are counted too); any other file runs
# whole, with --random-inputs 1 when its public @main takes parameters and
# no RUN line gives --args (StableHLO's dynamic/ programs); a module with no
# @main and several public functions without parameters runs each of them
# (--entry NAME) as a case. Verdicts, per file and backend, worst first:
#   CRASH        plumb died on a signal (exit status above 128)
#   HANG         still running after the timeout (default 60 s), killed
#   FAIL         a parse or verification error, a run-time error or a
#                failed check (anything plumb does not call unsupported)
#   UNSUPPORTED  only 'unsupported:' errors (an op, type or form outside
#                plumb's op set)
#   PASS         exit status 0 and nothing reported
# A reason is the message of an error or failed check with file names,
# line:column positions and SSA value names dropped, so that one cause
# counts once per file however often it occurs; the reasons table files an
# 'unsupported:' reason under UNSUPPORTED even when the same file also
# fails a check (a split file holds many cases).
# --list prints one line per file and backend (verdict, file, first reason);
# --json prints the same data as one JSON object instead of the tables.
# Exit status: 0 when the table was printed (whatever the verdicts), 2 on a
# usage error.
PLUMB=${PLUMB:-build/plumb}
json=0
list=0
tmo=60
while [ $# -gt 0 ]; do
    case $1 in
    --json) json=1 ;;
    --list) list=1 ;;
    --plumb)
        [ $# -ge 2 ] || { echo "upstream_triage: --plumb needs a path" >&2; exit 2; }
        PLUMB=$2
        shift
        ;;
    --timeout)
        [ $# -ge 2 ] || { echo "upstream_triage: --timeout needs a number of seconds" >&2; exit 2; }
        tmo=$2
        shift
        ;;
    -h | --help)
        sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "upstream_triage: unknown option '$1' (see --help)" >&2
        exit 2
        ;;
    *) break ;;
    esac
    shift
done
if [ $# -ne 1 ]; then
    echo "usage: sh tools/upstream_triage.sh [--json] [--list] [--plumb PATH] [--timeout SECONDS] DIR" >&2
    exit 2
fi
DIR=$1
case $tmo in '' | *[!0-9]*)
    echo "upstream_triage: --timeout '$tmo' is not a whole number of seconds" >&2
    exit 2
    ;;
esac
if [ ! -d "$DIR" ]; then
    echo "upstream_triage: '$DIR' is not a folder" >&2
    exit 2
fi
if [ ! -x "$PLUMB" ]; then
    echo "upstream_triage: the plumb binary '$PLUMB' is not executable (--plumb PATH or PLUMB=PATH)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-triage.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
have_timeout=0
command -v timeout > /dev/null 2>&1 && have_timeout=1

# One record per file and backend in $tmp/rec, tab-separated:
#   backend verdict file cases_passed cases_failed cases_unsupported reason|reason|...
find "$DIR" -name '*.mlir' -type f | LC_ALL=C sort > "$tmp/files"
: > "$tmp/rec"
while IFS= read -r f; do
    split=
    if grep -q '^// -----' "$f" || grep -q '^// RUN:.*split-input-file' "$f"; then
        split=--split-input-file
    # StableHLO's dynamic/ programs take their inputs as @main's parameters
    # and carry no checks: they run on generated inputs (as
    # tests/cli/test_testdata_dynamic.sh runs them) unless a RUN line gives
    # --args; in the generic form (SHerLOC's copies) @main's function_type
    # then starts with a parameter type instead of '()'
    elif { grep -q 'func.func public @main(%' "$f" ||
        grep '"func\.func"()' "$f" | grep 'sym_name = "main"' | grep -q 'function_type = ([^)]'; } &&
        ! grep -q -- '--args' "$f"; then
        split="--random-inputs 1"
    fi
    # A module with no @main and several public functions without
    # parameters (interpreter tests merged into one module, as SHerLOC's
    # generic-form copies are) runs each function with --entry as a case.
    entries=
    if [ -z "$split" ] && ! grep -q 'func\.func \(public \)\{0,1\}@main(\|sym_name = "main"' "$f"; then
        entries=$( (grep -o 'func\.func \(public \)\{0,1\}@[A-Za-z0-9_$.]*()' "$f" | sed 's/.*@//; s/()$//'
            grep '"func\.func"() <{function_type = () ->' "$f" | grep -v 'sym_visibility = "private"' |
                sed -n 's/.*sym_name = "\([A-Za-z0-9_$.]*\)".*/\1/p') | tr '\n' ' ')
        set -- $entries
        [ $# -gt 1 ] || entries=
    fi
    for b in ref runtime; do
        hang=0
        if [ -n "$entries" ]; then
            : > "$tmp/out"
            k=0
            np=0
            nf=0
            nu=0
            rc=0
            for e in $entries; do
                k=$((k + 1))
                if [ $have_timeout = 1 ]; then
                    timeout -s KILL "$tmo" "$PLUMB" run --backend "$b" --entry "$e" "$f" > "$tmp/one" 2>&1
                else
                    "$PLUMB" run --backend "$b" --timeout "$tmo" --entry "$e" "$f" > "$tmp/one" 2>&1
                fi
                erc=$?
                if [ $have_timeout = 1 ] && [ $erc = 137 ]; then
                    hang=1
                elif [ $erc -gt 128 ]; then
                    rc=$erc
                fi
                if [ $erc = 0 ]; then
                    np=$((np + 1))
                    echo "$f: case $k @$e: ok" >> "$tmp/out"
                elif grep -q 'unsupported: ' "$tmp/one"; then
                    nu=$((nu + 1))
                    echo "$f: case $k @$e: unsupported: $(grep -m1 'unsupported: ' "$tmp/one" | sed 's/^.*unsupported: //')" >> "$tmp/out"
                else
                    nf=$((nf + 1))
                    grep 'check failed: \|error: ' "$tmp/one" >> "$tmp/out"
                    echo "$f: case $k @$e: FAILED" >> "$tmp/out"
                fi
            done
            echo "$np passed, $nf failed, $nu unsupported" >> "$tmp/out"
            [ $rc = 0 ] && [ $nf -gt 0 ] && rc=1
        else
            if [ $have_timeout = 1 ]; then
                timeout -s KILL "$tmo" "$PLUMB" run --backend "$b" $split "$f" > "$tmp/out" 2>&1
            else
                "$PLUMB" run --backend "$b" --timeout "$tmo" $split "$f" > "$tmp/out" 2>&1
            fi
            rc=$?
            # timeout(1) -s KILL reports 137 for a killed child: that is a
            # hang, not a crash of plumb's own making.
            [ $have_timeout = 1 ] && [ $rc = 137 ] && hang=1
        fi
        awk -v b="$b" -v f="$f" -v rc="$rc" -v hang="$hang" '
        function norm(s,    i) {
            # the file name is no part of a reason (index, not gsub: the
            # path is text, not a pattern)
            while ((i = index(s, f)) > 0) s = substr(s, 1, i - 1) "FILE" substr(s, i + length(f))
            sub(/^.*: error: /, "", s)
            sub(/^error: /, "", s)
            gsub(/ *\(line [0-9]+:[0-9]+\)/, "", s)
            gsub(/%[A-Za-z0-9_#.$-]+/, "%", s)
            gsub(/\t/, " ", s)
            gsub(/\|/, "/", s)
            sub(/ +$/, "", s)
            if (length(s) > 160) s = substr(s, 1, 157) "..."
            return s
        }
        function add(kind, s) {
            s = norm(s)
            if (s == "") return
            key = kind ":" s
            if (!(key in seen)) { seen[key] = 1; reasons = reasons (reasons == "" ? "" : "|") s }
            if (kind == "u") nu++; else nf++
        }
        { line[++n] = $0 }
        /: (case [0-9]+( @[^:]*)?|RUN [0-9]+): (ok$|FAILED|unsupported: )/ { cases = 1 }
        /^[0-9]+ passed, [0-9]+ failed, [0-9]+ unsupported$/ { cp = $1; cf = $3; cu = $5 }
        END {
            for (i = 1; i <= n; i++) {
                s = line[i]
                if (cases) {
                    # Each case (split chunk or RUN line) ends in a verdict
                    # line; only what was printed since the previous verdict
                    # belongs to it, so a case that expects an error and
                    # gets it adds no reason.
                    if (s ~ /: (case [0-9]+( @[^:]*)?|RUN [0-9]+): ok$/) { last = "" }
                    else if (s ~ /: (case [0-9]+( @[^:]*)?|RUN [0-9]+): unsupported: /) {
                        sub(/^.*: (case [0-9]+( @[^:]*)?|RUN [0-9]+): /, "", s); add("u", s); last = "" }
                    else if (s ~ /: (case [0-9]+( @[^:]*)?|RUN [0-9]+): FAILED/) {
                        sub(/^.*: (case [0-9]+( @[^:]*)?|RUN [0-9]+): FAILED: */, "", s)
                        add("f", last != "" ? last : s); last = "" }
                    else if (last == "" && s ~ /check failed: /) { sub(/^.*check failed: /, "check failed: ", s); last = s }
                    else if (last == "" && s ~ /error: /) last = s
                    continue
                }
                if (s ~ /unsupported: /) { sub(/^.*unsupported: /, "unsupported: ", s); add("u", s) }
                else if (s ~ /check failed: /) { sub(/^.*check failed: /, "check failed: ", s); add("f", s) }
                else if (s ~ /error: /) add("f", s)
            }
            if (hang == 1) v = "HANG"
            else if (rc > 128) v = "CRASH"
            else if (nf > 0 || (rc != 0 && nu == 0)) v = "FAIL"
            else if (nu > 0) v = "UNSUPPORTED"
            else v = "PASS"
            if (v == "HANG") reasons = "no result within the timeout" (reasons == "" ? "" : "|" reasons)
            if (v == "CRASH") reasons = "died on signal " (rc - 128) (reasons == "" ? "" : "|" reasons)
            if (v == "FAIL" && reasons == "") reasons = "exit status " rc " without a message"
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b, v, f, cp + 0, cf + 0, cu + 0, reasons
        }' "$tmp/out" >> "$tmp/rec"
    done
done < "$tmp/files"

if [ $json = 1 ]; then
    awk -F '\t' '
    function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\r/, "\\r", s); return "\"" s "\"" }
    BEGIN { printf "{\"files\": [" }
    {
        printf "%s\n  {\"backend\": %s, \"verdict\": %s, \"file\": %s, \"cases\": {\"passed\": %d, \"failed\": %d, \"unsupported\": %d}, \"reasons\": [",
            (NR > 1 ? "," : ""), js($1), js($2), js($3), $4, $5, $6
        n = split($7, r, "|")
        for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? ", " : ""), js(r[i])
        printf "]}"
        cnt[$1 "\t" $2]++
        tot[$1]++
        # a reason counts under its own kind: an unsupported construct in a
        # file that also fails a check is still UNSUPPORTED
        if ($2 != "PASS") for (i = 1; i <= n; i++) why[$1 "\t" (r[i] ~ /^unsupported: / ? "UNSUPPORTED" : $2) "\t" r[i]]++
    }
    END {
        printf "\n], \"summary\": {"
        nb = split("ref runtime", bs, " ")
        nv = split("PASS FAIL UNSUPPORTED CRASH HANG", vs, " ")
        for (i = 1; i <= nb; i++) {
            printf "%s%s: {\"files\": %d", (i > 1 ? ", " : ""), js(bs[i]), tot[bs[i]]
            for (j = 1; j <= nv; j++) printf ", %s: %d", js(vs[j]), cnt[bs[i] "\t" vs[j]]
            printf "}"
        }
        printf "}, \"reasons\": ["
        k = 0
        for (w in why) {
            split(w, p, "\t")
            printf "%s\n  {\"backend\": %s, \"verdict\": %s, \"reason\": %s, \"files\": %d}", (k++ ? "," : ""), js(p[1]), js(p[2]), js(p[3]), why[w]
        }
        printf "\n]}\n"
    }' "$tmp/rec"
    exit 0
fi

if [ $list = 1 ]; then
    awk -F '\t' '{ r = $7; sub(/\|.*/, "", r); printf "%-11s %-7s %s%s\n", $2, $1, $3, (r == "" ? "" : "  -- " r) }' "$tmp/rec"
    echo
fi
echo "| backend | files | PASS | FAIL | UNSUPPORTED | CRASH | HANG | cases passed | cases failed | cases unsupported |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for b in ref runtime; do
    awk -F '\t' -v b="$b" '$1 == b { n++; c[$2]++; p += $4; f += $5; u += $6 }
        END { printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", b, n, c["PASS"], c["FAIL"], c["UNSUPPORTED"], c["CRASH"], c["HANG"], p, f, u }' "$tmp/rec"
done
echo
echo "| files | backend | verdict | reason |"
echo "|---|---|---|---|"
awk -F '\t' '$2 != "PASS" { n = split($7, r, "|"); for (i = 1; i <= n; i++) print $1 "\t" (r[i] ~ /^unsupported: / ? "UNSUPPORTED" : $2) "\t" r[i] }' "$tmp/rec" |
    LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1nr -k2 |
    awk '{ c = $1; sub(/^ *[0-9]+ /, ""); split($0, p, "\t"); printf "| %d | %s | %s | %s |\n", c, p[1], p[2], p[3] }'
