#!/bin/sh
# plumb certify --html (docs/certify.md, "The HTML report"), without a
# browser (make check-browser renders it in Chromium): a run with planted
# failures, from a backend whose path holds a hostile string, gives one
# self-contained page whose rows and counts are the JSON report's (read with
# jq), with every string escaped, nothing loaded from outside, inline SVG
# charts, the failures grouped with replay commands, and a verdict that
# never says CERTIFIED for a partial run. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init html
check() { # $1 = name; the rest is a command that must succeed
    name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}

so="$BUILD/plugins/fault_exp_ulp.so"
if [ ! -f "$so" ]; then
    echo "FAIL $so not built (make all builds the test plugins)"
    echo "0 passed, 1 failed"
    exit 1
fi
# A folder whose name would be markup, an entity and both quotes if it were
# not escaped: the backend's location is printed on the page.
evil='evil<img src=x onerror=alert(1)>&amp;"'"'"'</td>'
mkdir -p "$tmp/$evil"
cp "$so" "$tmp/$evil/fault.so"
"$PLUMB" certify --backend "$tmp/$evil/fault.so" --ops exponential,add --jobs 1 --timeout 20 \
    --scenarios-dir scenarios --json "$tmp/r.json" --html "$tmp/r.html" --repro-dir "$tmp/repro" -q \
    > "$tmp/out.txt" 2>&1
rc=$?
page="$tmp/r.html"
check "a run with failures exits 1 and writes the page" test "$rc" = 1 -a -s "$page"
check "the page is one HTML document" sh -c "head -c 15 '$page' | grep -q '^<!DOCTYPE html>' &&
    test \$(grep -c '</html>' '$page') = 1 && tail -n 1 '$page' | grep -q '^</html>\$'"
check "the hostile path is escaped, never markup" sh -c \
    "! grep -q '<img' '$page' && ! grep -q 'evil<' '$page' &&
     grep -q 'evil&lt;img src=x onerror=alert(1)&gt;&amp;amp;&quot;&#39;&lt;/td&gt;' '$page'"
# Nothing from outside: no URL anywhere, no CSS import or url(); in the
# tags (attribute values blanked), no src, no elements that load, no links
# but to the page's own anchors.
grep -o '<[^>]*>' "$page" | sed 's/="[^"]*"/=""/g' > "$tmp/tags"
check "nothing is loaded from outside" sh -c \
    "! grep -qiE 'https?:|ftp:|file:|//[a-z0-9.-]+\\.[a-z]{2,}/|url\\(|@import' '$page' &&
     ! grep -qiE '[[:space:]](src|srcset|data|poster|action|background)=|^<(link|iframe|object|embed|img|image|use|audio|video|source|base|form)[[:space:]>]' '$tmp/tags' &&
     ! grep -oE 'href=\"[^\"]*\"' '$page' | grep -qv '^href=\"#'"
check "a Content-Security-Policy forbids loading anything else" \
    grep -q "Content-Security-Policy\" content=\"default-src 'none';" "$page"
check "histograms, budget bars and timelines are inline SVG" sh -c \
    "grep -q '<svg class=\"hist\"' '$page' && grep -q '<svg class=\"bar\"' '$page' &&
     grep -q '<svg class=\"timeline\"' '$page'"

# Counts: the page against the JSON report of the same run.
n_ops=$(jq '.ops | length' "$tmp/r.json")
rows=$(grep -o '<tr class="op[ "]' "$page" | wc -l)
check "one op row per op of the JSON ($n_ops)" test "$rows" = "$n_ops" -a "$n_ops" -gt 1
ops_ok=1
for op in $(jq -r '.ops[].op' "$tmp/r.json"); do
    want=$(jq -r --arg op "$op" '.ops[] | select(.op == $op) | "\(.cases) \(.passed) \(.failed) \(.unsupported)"' "$tmp/r.json")
    row=$(grep "<tr class=\"op[^\"]*\" data-op=\"$op\"" "$page")
    got=$(echo "$row" | grep -o 'class="n[^"]*" data-v="[0-9]*"' | head -4 | sed 's/.*data-v="\([0-9]*\)"/\1/' | tr '\n' ' ' |
        sed 's/ $//')
    [ "$got" = "$want" ] || { echo "  $op: page '$got', JSON '$want'"; ops_ok=0; }
done
check "every op row has the JSON's cases, passed, failed, unsupported" test "$ops_ok" = 1
n_fail=$(jq '[.failures[] | select(.status != "flaky")] | length' "$tmp/r.json")
items=$(grep -c '<li class="failure"' "$page")
groups_sum=$(grep -o '<section class="fail-op" data-op="[^"]*" data-count="[0-9]*"' "$page" |
    sed 's/.*data-count="\([0-9]*\)"/\1/' | awk '{s += $1} END {print s + 0}')
check "every failure of the JSON ($n_fail) is listed and counted in a group" \
    test "$n_fail" -gt 0 -a "$items" = "$n_fail" -a "$groups_sum" = "$n_fail"
check "failures are grouped under the failing op" \
    grep -q '<section class="fail-op" data-op="stablehlo.exponential"' "$page"
id=$(jq -r '.failures[0].id' "$tmp/r.json")
check "each failure has its replay command" \
    grep -q -- "--suite quick --seed 1 --case $id</code>" "$page"
check "the failing op comes first in the table without a script" sh -c \
    "grep -o '<tr class=\"op[^\"]*\" data-op=\"[^\"]*\"' '$page' | head -n 1 | grep -q 'op bad\" data-op=\"stablehlo.exponential\"'"
n_cache=$(jq '.cache_stability | length' "$tmp/r.json")
check "one row per cache scenario of the JSON ($n_cache)" \
    test "$(grep -c '<tr class="scenario' "$page")" = "$n_cache" -a "$n_cache" -gt 0
digest=$(jq -r '.certificate.digest' "$tmp/r.json")
check "the certificate's digest is the JSON's" grep -q "<code id=\"digest\">$digest</code>" "$page"
acc=$(jq -r '.certificate.capabilities.accumulators.f8E4M3FN' "$tmp/r.json")
check "the certificate shows the small formats' accumulators (ABI 1.4 accum_small: f8E4M3FN->$acc)" \
    grep -q "<dd id=\"accum-small\">[^<]*-&gt;$acc" "$page"
check "a partial run says so and is never CERTIFIED" sh -c \
    "test \"\$(jq .certificate.certified '$tmp/r.json')\" = false &&
     grep -q 'class=\"verdict v-partial\" data-certified=\"false\"' '$page' &&
     grep -q 'PARTIAL RUN — NOT A CERTIFICATE' '$page' && ! grep -q '>CERTIFIED<' '$page'"

# --out DIR writes report.html beside the others; merge writes one too.
"$PLUMB" certify --backend "$so" --ops negate --jobs 1 -q --scenarios-dir scenarios --out "$tmp/out" > /dev/null 2>&1
check "--out DIR writes DIR/report.html" test -s "$tmp/out/report.html"
"$PLUMB" certify merge --html "$tmp/merged.html" -q "$tmp/out/report.json" > /dev/null 2>&1
check "certify merge --html writes the merged run's page" grep -q 'data-op="stablehlo.negate"' "$tmp/merged.html"

# Never written through a symbolic link.
echo keep > "$tmp/target"
ln -s "$tmp/target" "$tmp/link.html"
"$PLUMB" certify --backend "$so" --ops negate --jobs 1 -q --scenarios-dir scenarios --html "$tmp/link.html" \
    > /dev/null 2> "$tmp/link.err"
rc=$?
check "--html refuses a symbolic link (exit 2, target untouched)" sh -c \
    "test $rc = 2 && test \"\$(cat '$tmp/target')\" = keep && grep -q 'symbolic link' '$tmp/link.err'"

finish
