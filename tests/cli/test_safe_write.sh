#!/bin/sh
# plumb never writes through a symbolic link at the final name, never onto
# anything but a regular file, and trusts a cache directory only when no
# other user can write it (docs/runtime.md, "Security"). Covers fmt -o/-i,
# certify's reports, TEST_SHARD_STATUS_FILE, run --output-dir and
# PLUMB_CACHE_DIR. Run by
# tests/run.sh with PLUMB set to the binary. Ends with
# "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init safe-write
skipped=0

skip() { skipped=$((skipped + 1)); echo "skip - $1"; }
# run CMD...: stdout in $tmp/out, stderr in $tmp/err, status in $rc. A
# command that blocks (a FIFO opened for writing) is killed after 20 s.
run() { timeout 20 "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }
# check DESCRIPTION 'CONDITION': ok if the shell condition (evaluated now,
# so it may use && and the helpers below) holds.
check() {
    if eval "$2"; then ok "$1"; else fail "$1"; fi
}
has_err() { grep -qF -- "$1" "$tmp/err"; }
same() { cmp -s "$1" "$2"; }

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

cat > "$tmp/prog.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x,   %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
echo "precious" > "$tmp/victim"
cp "$tmp/victim" "$tmp/victim.orig"

# ---- fmt -o onto things that are not regular files -----------------------------
ln -s "$tmp/victim" "$tmp/link"
run "$PLUMB" fmt -o "$tmp/link" "$tmp/prog.mlir"
check "fmt -o LINK exits 2" '[ "$rc" = 2 ]'
want="cannot write '$tmp/link': it is a symbolic link"
check "fmt -o LINK says it is a symbolic link" 'has_err "$want"'
check "fmt -o LINK leaves the link's target alone" 'same "$tmp/victim" "$tmp/victim.orig"'
check "fmt -o LINK leaves the link a link" '[ -L "$tmp/link" ]'

ln -s "$tmp/nowhere" "$tmp/dangling"
run "$PLUMB" fmt -o "$tmp/dangling" "$tmp/prog.mlir"
check "fmt -o DANGLING-LINK is refused and creates no target" '[ "$rc" = 2 ] && [ ! -e "$tmp/nowhere" ]'

mkfifo "$tmp/fifo"
run "$PLUMB" fmt -o "$tmp/fifo" "$tmp/prog.mlir"
check "fmt -o FIFO returns at once with exit 2 (no open, no hang)" '[ "$rc" = 2 ]'
check "fmt -o FIFO says it is a FIFO" 'has_err "it is a FIFO"'
check "fmt -o FIFO leaves the FIFO" '[ -p "$tmp/fifo" ]'

mkdir "$tmp/dir"
run "$PLUMB" fmt -o "$tmp/dir" "$tmp/prog.mlir"
check "fmt -o DIR says it is a directory" '[ "$rc" = 2 ] && has_err "it is a directory"'

# A device node like /dev/null, made here (mknod needs root); never the real one.
if mknod "$tmp/null" c 1 3 2> /dev/null; then
    run "$PLUMB" fmt -o "$tmp/null" "$tmp/prog.mlir"
    check "fmt -o DEVICE says it is a character device" '[ "$rc" = 2 ] && has_err "it is a character device"'
    check "fmt -o DEVICE leaves the device node" '[ -c "$tmp/null" ]'
else
    skip "fmt -o DEVICE (mknod needs root)"
fi

# ---- fmt -o / -i on regular files ----------------------------------------------
run "$PLUMB" fmt -o "$tmp/new.mlir" "$tmp/prog.mlir"
check "fmt -o NEW writes the canonical form" '[ "$rc" = 0 ] && grep -q "stablehlo.add %arg0, %arg0" "$tmp/new.mlir"'
cp "$tmp/prog.mlir" "$tmp/mode.mlir"
chmod 0640 "$tmp/mode.mlir"
run "$PLUMB" fmt -i "$tmp/mode.mlir"
check "fmt -i keeps the file's permissions" '[ "$rc" = 0 ] && [ "$(stat -c %a "$tmp/mode.mlir")" = 640 ]'
mkdir "$tmp/real"
ln -s "$tmp/real" "$tmp/via"
run "$PLUMB" fmt -o "$tmp/via/out.mlir" "$tmp/prog.mlir"
check "a link in the directory part is followed" '[ "$rc" = 0 ] && [ -f "$tmp/real/out.mlir" ]'

cp "$tmp/prog.mlir" "$tmp/linked.mlir"
cp "$tmp/prog.mlir" "$tmp/linked.orig"
ln -s "$tmp/linked.mlir" "$tmp/inplace-link"
run "$PLUMB" fmt -i "$tmp/inplace-link"
check "fmt -i LINK is refused" '[ "$rc" = 2 ] && has_err "is a symbolic link"'
check "fmt -i LINK changes neither link nor target" '[ -L "$tmp/inplace-link" ] && same "$tmp/linked.mlir" "$tmp/linked.orig"'
run "$PLUMB" fmt -i "$tmp/linked.mlir"
check "fmt -i on the target itself works" '[ "$rc" = 0 ] && ! same "$tmp/linked.mlir" "$tmp/linked.orig"'
run "$PLUMB" fmt -i "$tmp/inplace-link"
check "fmt -i LINK is refused even when the target is canonical" '[ "$rc" = 2 ]'

run "$PLUMB" fmt --help
check "fmt --help says links and devices are refused" 'grep -q "symbolic" "$tmp/out"'

# ---- certify: the report directory ---------------------------------------------
mkdir -p "$tmp/rep"
ln -s "$tmp/victim" "$tmp/rep/report.json"
run "$PLUMB" certify --backend ref --ops add --limit 1 --no-cache-suite -q --out "$tmp/rep"
check "certify with report.json a link exits 2" '[ "$rc" = 2 ]'
want="cannot write '$tmp/rep/report.json': it is a symbolic link"
check "certify names the link" 'has_err "$want"'
check "certify leaves the link's target alone" 'same "$tmp/victim" "$tmp/victim.orig"'
check "certify still writes the other reports" '[ -f "$tmp/rep/report.txt" ] && [ -f "$tmp/rep/report.xml" ]'
run "$PLUMB" certify --backend ref --ops add --limit 1 --no-cache-suite -q --out "$tmp/deep/er/reports"
check "certify --out creates missing parents" '[ -f "$tmp/deep/er/reports/report.json" ]'

# TEST_SHARD_STATUS_FILE is only touched: a FIFO there does not block, a
# dangling link there does not create its target.
mkfifo "$tmp/status-fifo"
run env TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=1 TEST_SHARD_STATUS_FILE="$tmp/status-fifo" \
    "$PLUMB" certify --backend ref --ops add --limit 1 --no-cache-suite -q
check "a FIFO as TEST_SHARD_STATUS_FILE does not block certify" '[ "$rc" != 124 ] && [ -p "$tmp/status-fifo" ]'
ln -s "$tmp/status-target" "$tmp/status-link"
run env TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=1 TEST_SHARD_STATUS_FILE="$tmp/status-link" \
    "$PLUMB" certify --backend ref --ops add --limit 1 --no-cache-suite -q
check "a link as TEST_SHARD_STATUS_FILE is not followed" '[ "$rc" != 124 ] && [ ! -e "$tmp/status-target" ]'
run env TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=1 TEST_SHARD_STATUS_FILE="$tmp/status" \
    "$PLUMB" certify --backend ref --ops add --limit 1 --no-cache-suite -q
check "TEST_SHARD_STATUS_FILE is still created" '[ -f "$tmp/status" ]'

# ---- run --output-dir ----------------------------------------------------------
echo 'dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>' > "$tmp/x.txt"
mkdir "$tmp/outs"
ln -s "$tmp/victim" "$tmp/outs/result_0.tensor"
run "$PLUMB" run --input 0="$tmp/x.txt" --output-dir "$tmp/outs" "$tmp/prog.mlir"
if [ "$rc" = 2 ] && has_err "cannot write '$tmp/outs/result_0.tensor': it is a symbolic link"; then
    ok "run --output-dir refuses a link at result_0.tensor"
else
    fail "run --output-dir refuses a link at result_0.tensor (exit $rc)"
fi
check "run --output-dir leaves the link's target alone" 'same "$tmp/victim" "$tmp/victim.orig"'

# ---- PLUMB_CACHE_DIR -------------------------------------------------------------
run env PLUMB_CACHE_DIR="$tmp/cache/a/b" "$PLUMB" run --backend runtime --input 0="$tmp/x.txt" "$tmp/prog.mlir"
check "a nested cache directory is created" '[ "$rc" = 0 ] && [ -d "$tmp/cache/a/b" ]'
check "every created component is 0700" '[ "$(stat -c %a "$tmp/cache")" = 700 ] && [ "$(stat -c %a "$tmp/cache/a")" = 700 ] && [ "$(stat -c %a "$tmp/cache/a/b")" = 700 ]'
check "the entry is written there" 'ls "$tmp/cache/a/b" | grep -q "\.plumbc\$"'

mkdir "$tmp/open"
chmod 0777 "$tmp/open"
run env PLUMB_CACHE_DIR="$tmp/open" "$PLUMB" run --backend runtime --input 0="$tmp/x.txt" "$tmp/prog.mlir"
check "a world-writable cache directory does not fail the run" '[ "$rc" = 0 ]'
want="plumb: warning: disk cache disabled: cache directory '$tmp/open' is writable by every user (mode 0777)"
check "it is refused with one warning line" '[ "$(grep -cF "$want" "$tmp/err")" = 1 ]'
check "nothing is written into it" '[ -z "$(ls "$tmp/open")" ]'

finish
