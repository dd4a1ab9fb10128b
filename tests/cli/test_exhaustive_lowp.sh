#!/bin/sh
# Every unary elementwise float op over every bit pattern of every small
# float format it takes (FP8, FP6, FP4, E8M0: at most 256 patterns each), on
# the runtime against the reference with `plumb exhaustive`: the runtime's
# table kernels are correctly rounded, so every result must be bitwise
# equal to the reference's (docs/spec/types.md, "Exhaustive sweeps"). The
# op x format list comes from `plumb ops --markdown` (the op table and
# ir_lowp_accepts), so an op that gains a format is swept at once.
# Ends with "N passed, N failed, N skipped".
PLUMB=${PLUMB:-build/plumb}
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-exh-lowp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

SMALL="f8E4M3FN f8E5M2 f8E4M3FNUZ f8E5M2FNUZ f8E4M3B11FNUZ f8E3M4 f8E4M3 f8E8M0FNU f6E2M3FN f6E3M2FN f4E2M1FN"

if [ ! -x "$PLUMB" ]; then
    echo "FAIL - the plumb binary '$PLUMB' exists and is executable"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
"$PLUMB" ops --markdown > "$tmp/ops" || { echo "FAIL - plumb ops --markdown"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
# | `name` | operands | results | kind | types | ...: unary elementwise ops
# (convert and bitcast_convert change the type: not a sweep of one format;
# reduce_precision takes attributes the sweep's program does not write)
awk -F'|' '$3 ~ /^ *1 *$/ && $5 ~ /^ *elementwise *$/ { n = $2; gsub(/[ `]/, "", n); print n "|" $6 }' "$tmp/ops" |
    grep -v '^stablehlo\.convert|\|^stablehlo\.bitcast_convert|\|^stablehlo\.reduce_precision|' > "$tmp/list"
pairs=0
while IFS='|' read -r op types; do
    short=${op#stablehlo.}
    for t in $SMALL; do
        case ", $(echo "$types" | sed 's/^ *//; s/ *$//')," in
        *", $t,"*) ;;
        *) continue ;;
        esac
        pairs=$((pairs + 1))
        if "$PLUMB" exhaustive --op "$short" --dtype "$t" --backend runtime > "$tmp/out" 2> "$tmp/err" &&
            grep -q "inputs, .*(bitwise equal), 0 over bound" "$tmp/out"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL - $op on $t: runtime bitwise equal to the reference over every pattern"
            cat "$tmp/out" "$tmp/err" | tail -n 3 | sed 's/^/    /'
        fi
    done
done < "$tmp/list"
# The table lists at least the unary ops docs/spec/types.md names (abs,
# negate, sign, floor, ceil, the two roundings, sqrt, rsqrt, cbrt, the 9
# exp/log/trig ops, erf, the 9 CHLO inverse and hyperbolic ops with erfc,
# lgamma, digamma, square, is_finite and the 3 is_inf ops: 36) on all 11
# formats.
if [ "$pairs" -ge 396 ]; then
    passed=$((passed + 1))
    echo "ok - $pairs op x format sweeps ran"
else
    failed=$((failed + 1))
    echo "FAIL - only $pairs op x format sweeps found in plumb ops (expected at least 36 x 11 = 396)"
fi
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
