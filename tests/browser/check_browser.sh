#!/bin/sh
# make check-browser (not part of make check: Chromium is large; .ci/run runs
# it). The HTML report of certification runs with planted faults, rendered
# in headless Chromium with every host name unresolvable:
#   - the DOM holds the failing op's row, its failure group with as many
#     cases as the JSON report's failures, a failed cache scenario's row,
#     and the verdict; the page's sorting script ran (it titles the
#     headings) and nothing from a hostile backend path became an element;
#   - the page asked for nothing on the network: Chromium's NetLog holds no
#     request made on behalf of the page (a control page with an external
#     image and script must show its two requests, so the check can fail);
#   - tidy (Debian's HTML validator) reports no error and no warning.
# Needs chromium (or chromium-headless-shell) and tidy: ci/deps.sh --browser.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { # $1 = name; the rest is a command that must succeed
    name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

chrome=""
for c in chromium chromium-headless-shell chromium-browser; do
    if command -v "$c" > /dev/null 2>&1; then chrome=$c; break; fi
done
if [ -z "$chrome" ] || ! command -v tidy > /dev/null 2>&1; then
    echo "FAIL chromium and tidy are needed: sh ci/deps.sh --browser"
    echo "0 passed, 1 failed"
    exit 1
fi
for f in fault_exp_ulp fault_cache_params; do
    if [ ! -f "$BUILD/plugins/$f.so" ]; then
        echo "FAIL $BUILD/plugins/$f.so not built (make all builds the test plugins)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done

# Renders file $1: the DOM after scripts ran to $2, the NetLog to $3.
# Background services are off and every host resolves to nothing, so even
# a page that asked for something would get nothing.
render() {
    rm -rf "$tmp/profile"
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
        --user-data-dir="$tmp/profile" --disable-background-networking --disable-component-update \
        --disable-sync --disable-default-apps --disable-extensions --disable-domain-reliability \
        --host-resolver-rules="MAP * ~NOTFOUND" --log-net-log="$3" \
        --dump-dom "file://$1" > "$2" 2> "$2.err"
}
# The URLs the page itself asked for: requests whose network isolation key
# is the file:// page (the browser's own background requests have none).
page_requests() {
    jq -r '[.events[]? | .params? // {} | select(type == "object" and (.url? // "") != ""
            and ((.network_isolation_key? // "") | tostring | contains("file://"))) | .url]
           | unique | .[] | select(startswith("file:") | not)' "$1"
}

# The control: a page that does load from outside is caught.
printf '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>control</title></head><body>%s%s</body></html>\n' \
    '<img src="http://plumb-control.invalid/x.png" alt="x">' \
    '<script src="https://plumb-control.invalid/a.js"></script>' > "$tmp/control.html"
render "$tmp/control.html" "$tmp/control.dom" "$tmp/control.net"
n=$(page_requests "$tmp/control.net" | grep -c 'plumb-control.invalid')
check "the NetLog check sees a control page's 2 external requests (saw $n)" test "$n" = 2

# A run with op failures, from a path holding markup.
evil='evil<img src=x onerror=alert(1)>&"'"'"
mkdir -p "$tmp/$evil"
cp "$BUILD/plugins/fault_exp_ulp.so" "$tmp/$evil/fault.so"
"$PLUMB" certify --backend "$tmp/$evil/fault.so" --ops exponential,add --jobs 1 --timeout 20 \
    --scenarios-dir scenarios --json "$tmp/r.json" --html "$tmp/r.html" --repro-dir "$tmp/repro" -q \
    > "$tmp/run.txt" 2>&1
check "certify with a planted fault fails and writes the page" test $? = 1 -a -s "$tmp/r.html"
tidy -errors -q "$tmp/r.html" > "$tmp/tidy.txt" 2>&1
rc=$?
check "tidy finds no error or warning in the page" test "$rc" = 0
[ "$rc" = 0 ] || head -20 "$tmp/tidy.txt"
render "$tmp/r.html" "$tmp/r.dom" "$tmp/r.net"
check "Chromium rendered the page" grep -q '<h1>plumb certify: fault_exp_ulp' "$tmp/r.dom"
reqs=$(page_requests "$tmp/r.net")
check "the page made no network request" test -z "$reqs"
[ -z "$reqs" ] || echo "$reqs" | head -5
check "the DOM has the failing op's row, marked" \
    grep -q '<tr class="op bad" data-op="stablehlo.exponential">' "$tmp/r.dom"
check "the DOM has the passing op's row" grep -q '<tr class="op" data-op="stablehlo.add">' "$tmp/r.dom"
nf=$(jq '[.failures[] | select(.op == "stablehlo.exponential" and .status != "flaky")] | length' "$tmp/r.json")
check "the DOM has the failure group with the JSON's $nf failures" \
    grep -q "<section class=\"fail-op\" data-op=\"stablehlo.exponential\" data-count=\"$nf\">" "$tmp/r.dom"
check "the DOM lists $nf failures with replay commands" \
    test "$(grep -o '<code class="replay">plumb certify --backend ' "$tmp/r.dom" | wc -l)" = "$nf" -a "$nf" -gt 0
check "the DOM shows the partial verdict, never CERTIFIED" sh -c \
    "grep -q 'class=\"verdict v-partial\" data-certified=\"false\"' '$tmp/r.dom' &&
     grep -q 'PARTIAL RUN — NOT A CERTIFICATE' '$tmp/r.dom' && ! grep -q '>CERTIFIED<' '$tmp/r.dom'"
check "the sorting script ran (headings titled)" grep -q '<th title="click to sort">op</th>' "$tmp/r.dom"
grep -o '<[^>]*>' "$tmp/r.dom" | sed 's/="[^"]*"/=""/g' > "$tmp/tags"
check "the hostile path made no element and no src" sh -c \
    "! grep -qiE '^<img|[[:space:]]src=|onerror' '$tmp/tags' && grep -q 'evil&lt;img src=x onerror=alert(1)&gt;' '$tmp/r.dom'"

# A run whose cache scenarios fail (a cache keyed on parameter values).
"$PLUMB" certify --backend "$BUILD/plugins/fault_cache_params.so" --ops add --jobs 1 --timeout 20 \
    --scenarios-dir scenarios --json "$tmp/c.json" --html "$tmp/c.html" --repro-dir "$tmp/repro" -q \
    > "$tmp/run2.txt" 2>&1
tidy -errors -q "$tmp/c.html" > "$tmp/tidy2.txt" 2>&1
check "tidy finds no error or warning in the cache-fault page" test $? = 0
render "$tmp/c.html" "$tmp/c.dom" "$tmp/c.net"
check "the cache-fault page made no network request" test -z "$(page_requests "$tmp/c.net")"
sc=$(jq -r '[.cache_stability[] | select(.pass == false)][0].scenario' "$tmp/c.json")
compiles=$(jq -r --arg s "$sc" '.cache_stability[] | select(.scenario == $s) | .compiles' "$tmp/c.json")
check "the DOM has the failed scenario '$sc' with its $compiles compiles and a timeline" \
    grep -q "<tr class=\"scenario bad\" data-scenario=\"$sc\"><td><code>$sc</code></td><td class=\"n compiles\" data-v=\"$compiles\">$compiles</td>.*<svg class=\"timeline\"" "$tmp/c.dom"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
