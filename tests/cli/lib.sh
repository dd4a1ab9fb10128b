# Shared by the shell tests of tests/cli: sourced, never run on its own
# (tests/run.sh and the Makefile run tests/*/test_*.sh only, so this file,
# not named test_*, is not a test). A test sources it as
#     . "$(dirname "$0")/lib.sh"
#     lib_init NAME
# and then has:
#   PLUMB            the plumb binary (default build/plumb)
#   $tmp             a fresh folder, removed when the test exits
#   ok DESC          counts a passed check and prints "ok - DESC"
#   fail DESC        counts a failed check, prints "FAIL - DESC" and the
#                    first lines of $tmp/err and $tmp/out (where the
#                    check's command wrote)
#   skipped          unset; a test that skips sets it to 0 after lib_init
#                    and counts
#   finish           prints the last line "N passed, N failed" (with
#                    ", N skipped" when skipped is set) that tests/run.sh
#                    reads and exits, nonzero on a failure
#   need_plumb       fails and finishes when $PLUMB is not executable
#   expect_both DESC WANT PROGRAM ARG...
#                    runs `plumb run --backend B PROGRAM ARG...` on the
#                    reference and on the runtime and wants exit status 0
#                    and standard output WANT from each (one check each)
#   expect_both_file DESC WANTFILE PROGRAM ARG...
#                    the same with the wanted output in WANTFILE; the
#                    checks read "DESC on ref" and "DESC on runtime", and a
#                    failed one prints its difference from WANTFILE
#   run CMD ARG...   runs the command, its output in $tmp/out and $tmp/err,
#                    its exit status in $rc
#   expect_rc DESC WANT
#                    one check: $rc (of the last run) is WANT
#   plugin NAME      prints the path of the test plugin
#                    tests/conformance/plugins/NAME.c built as a shared
#                    object under $BUILD/plugins, building it when the
#                    Makefile rule has not; nonzero when it cannot
#   both_pass DESC PROGRAM
#                    `plumb run --backend B PROGRAM` exits 0 on the
#                    reference and on the runtime (one check each, "DESC on
#                    B"): for programs that check themselves
#   expect_pretty GENERIC PATTERN
#                    two checks: `plumb fmt GENERIC` prints a line matching
#                    the grep PATTERN (the pretty form), and formatting that
#                    output again gives it back unchanged
#   expect_exit WANT DESC CMD ARG...
#                    runs the command (as run does) and checks once that
#                    it exits with status WANT (the conformance tests' form)
#   expect_err DESC TEXT
#                    one check: $tmp/err (of the last run) holds TEXT
#                    (a fixed string)
#   expect_refused DESC PROGRAM TEXT...
#                    one check: `plumb verify PROGRAM` fails and its stderr
#                    holds every TEXT (grep patterns)
# Everything here must run under /bin/sh (dash).

# lib_init NAME: counters, PLUMB and $tmp (named after NAME).
lib_init() {
    skipped=
    PLUMB=${PLUMB:-build/plumb}
    passed=0
    failed=0
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
}

ok() { passed=$((passed + 1)); echo "ok - $1"; }

fail() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [ -s "$tmp/err" ]; then sed 's/^/    stderr: /' "$tmp/err" | head -n 5; fi
    if [ -s "$tmp/out" ]; then sed 's/^/    stdout: /' "$tmp/out" | head -n 5; fi
}

finish() {
    echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
    [ "$failed" = 0 ]
    exit
}

need_plumb() {
    if [ ! -x "$PLUMB" ]; then
        fail "the plumb binary '$PLUMB' exists and is executable"
        finish
    fi
}

expect_both() {
    lib_desc=$1 lib_want=$2 lib_prog=$3
    shift 3
    for lib_be in ref runtime; do
        "$PLUMB" run --backend "$lib_be" "$lib_prog" "$@" > "$tmp/out" 2> "$tmp/err"
        lib_rc=$?
        if [ "$lib_rc" = 0 ] && [ "$(cat "$tmp/out")" = "$lib_want" ]; then ok "$lib_desc ($lib_be)"
        else fail "$lib_desc ($lib_be): exit $lib_rc, want '$lib_want'"; fi
    done
}

expect_both_file() {
    lib_desc=$1 lib_wantf=$2 lib_prog=$3
    shift 3
    for lib_be in ref runtime; do
        if "$PLUMB" run --backend "$lib_be" "$lib_prog" "$@" > "$tmp/out" 2> "$tmp/err" &&
            cmp -s "$tmp/out" "$lib_wantf"; then
            ok "$lib_desc on $lib_be"
        else
            fail "$lib_desc on $lib_be"
            diff "$lib_wantf" "$tmp/out" | sed 's/^/    /'
        fi
    done
}

run() { "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }

expect_rc() {
    if [ "$rc" = "$2" ]; then ok "$1"; else fail "$1 (exit $rc, expected $2)"; fi
}

plugin() {
    lib_so="${BUILD:-build}/plugins/$1.so"
    if [ ! -f "$lib_so" ]; then
        mkdir -p "${BUILD:-build}/plugins"
        ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -fPIC -Iinclude -Iconformance -O1 -shared \
            -o "$lib_so" "tests/conformance/plugins/$1.c" "${BUILD:-build}/libplumb.a" \
            -lxxhash -lmpfr -lgmp -lgsl -lgslcblas -lm -lpthread -ldl || return 1
    fi
    echo "$lib_so"
}

both_pass() {
    for lib_be in ref runtime; do
        if "$PLUMB" run --backend $lib_be "$2" > "$tmp/out" 2> "$tmp/err"; then ok "$1 on $lib_be"
        else fail "$1 on $lib_be"; fi
    done
}

# expect_fail DESC FILE TEXT: the program fails its checks (exit 1) on
# both backends, and stderr holds TEXT
expect_fail() {
    for lib_be in ref runtime; do
        run "$PLUMB" run --backend "$lib_be" "$2"
        if [ "$rc" = 1 ] && grep -qF "$3" "$tmp/err"; then ok "$1 ($lib_be)"
        else fail "$1 ($lib_be): exit $rc, want 1 and '$3'"; fi
    done
}

expect_pretty() {
    if "$PLUMB" fmt "$1" > "$tmp/out" 2> "$tmp/err" && grep -q -- "$2" "$tmp/out"; then
        ok "the generic form prints in the pretty form"
    else
        fail "the generic form prints in the pretty form"
    fi
    if "$PLUMB" fmt "$tmp/out" > "$tmp/out2" 2> "$tmp/err" && cmp -s "$tmp/out" "$tmp/out2"; then
        ok "the pretty form reads back to itself"
    else
        fail "the pretty form reads back to itself"
    fi
}

expect_exit() {
    lib_want=$1 lib_desc=$2
    shift 2
    run "$@"
    if [ "$rc" = "$lib_want" ]; then ok "$lib_desc"; else fail "$lib_desc: exit $rc, want $lib_want"; fi
}

expect_err() {
    if grep -F -q -- "$2" "$tmp/err"; then ok "$1"; else fail "$1 (no '$2' on stderr)"; fi
}

expect_refused() {
    lib_desc=$1 lib_prog=$2
    shift 2
    if "$PLUMB" verify "$lib_prog" > "$tmp/out" 2> "$tmp/err"; then
        fail "$lib_desc (verify accepted it)"
        return
    fi
    for lib_text in "$@"; do
        if ! grep -q -- "$lib_text" "$tmp/err"; then fail "$lib_desc (no '$lib_text' on stderr)"; return; fi
    done
    ok "$lib_desc"
}
