#!/bin/sh
# plumb cache ls|verify|prune|clear on a cache directory filled by plumb run
# (PLUMB_CACHE_DIR): this build's entries are valid; an entry with a byte
# flipped, a truncated one, one whose header names another build identity
# and one whose header names another key are reported with their reasons
# (verify exits 1) and removed by prune; a file not named like an entry, a
# folder and links (one named like an entry, pointing at an entry outside
# the directory) are never read or removed; clear removes every entry;
# --max-bytes evicts the least recently used; a missing, untrusted or
# unnamed directory is an error with exit 2. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init cachecmd
# the tests make folders unreadable: give them back before removing $tmp
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "$3 ('$2' in $(basename "$1"))"; else ok "$3"; fi
}
# line_has FILE KEY TEXT DESCRIPTION: the line of FILE naming KEY contains TEXT.
line_has() {
    if grep -F -- "$2" "$1" | grep -F -q -- "$3"; then ok "$4"; else fail "$4 (line of $2 lacks '$3')"; fi
}
exists() { if [ -e "$1" ] || [ -L "$1" ]; then ok "$2"; else fail "$2 ($1 is gone)"; fi; }
gone() { if [ -e "$1" ] || [ -L "$1" ]; then fail "$2 ($1 is still there)"; else ok "$2"; fi; }

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# Four programs differing by a baked constant: four entries.
for i in 1 2 3 4; do
    cat > "$tmp/p$i.mlir" <<EOF2
module @m$i {
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<$i.5> : tensor<4xf32>
  %y = stablehlo.multiply %x, %c : tensor<4xf32>
  return %y : tensor<4xf32>
}
}
EOF2
done
c="$tmp/cache"
# entry_of I: runs program I into the cache and prints the name of the
# entry it added (the one file that was not there before).
entry_of() {
    ls "$c" 2>/dev/null | sort > "$tmp/before"
    PLUMB_CACHE_DIR="$c" "$PLUMB" run --backend runtime --random-inputs "$tmp/p$1.mlir" > /dev/null 2>&1
    ls "$c" | sort | comm -13 "$tmp/before" -
}
e1=$(entry_of 1)
e2=$(entry_of 2)
e3=$(entry_of 3)
e4=$(entry_of 4)
k1=${e1%.plumbc}; k2=${e2%.plumbc}; k3=${e3%.plumbc}; k4=${e4%.plumbc}
if [ ${#k1} = 32 ] && [ ${#k2} = 32 ] && [ ${#k3} = 32 ] && [ ${#k4} = 32 ]; then
    ok "plumb run wrote one entry KEYHEX.plumbc per program"
else
    fail "plumb run wrote one entry KEYHEX.plumbc per program (got '$e1' '$e2' '$e3' '$e4')"
    finish
fi
size1=$(wc -c < "$c/$e1" | tr -d ' ')

# All valid, with the function and module they were compiled for.
run "$PLUMB" cache ls --dir "$c"
expect_rc "ls on a fresh cache exits 0" 0
line_has "$tmp/out" "$k1" "valid  @main (module @m1)" "ls: entry 1 valid, compiled for @main of module @m1"
line_has "$tmp/out" "$k3" "valid  @main (module @m3)" "ls: entry 3 valid, compiled for @main of module @m3"
line_has "$tmp/out" "$k1" " $size1 bytes" "ls: entry 1's size is its file's"
has "$tmp/out" "4 entries, " "ls totals: 4 entries"
has "$tmp/out" "4 valid, 0 stale, 0 foreign, 0 corrupt; 0 other files ignored" "ls totals: all valid"
# PLUMB_CACHE_DIR is the default directory, as for the runtime
PLUMB_CACHE_DIR="$c" run "$PLUMB" cache ls
has "$tmp/out" "4 valid, 0 stale" "ls without --dir reads PLUMB_CACHE_DIR"
run "$PLUMB" cache verify --dir "$c"
expect_rc "verify on a fresh cache exits 0" 0
has "$tmp/out" "verify: 4 entries checked, 4 rebuilt from their stored program, 0 bad" "verify rebuilds every entry of a small cache"
run "$PLUMB" cache verify --sample 1 --dir "$c"
has "$tmp/out" "4 entries checked, 1 rebuilt" "verify --sample 1 rebuilds one entry"

# The damage, by hand (header: runtime identity at byte 16, 32 bytes).
# Entry 1: its last byte (the stored program's final newline) replaced.
printf 'X' | dd of="$c/$e1" bs=1 seek=$((size1 - 1)) conv=notrunc 2> /dev/null
# Entry 2: cut to 300 bytes (the header is 104).
size2=$(wc -c < "$c/$e2" | tr -d ' ')
dd if="$c/$e2" of="$tmp/t" bs=300 count=1 2> /dev/null && cat "$tmp/t" > "$c/$e2"
# Entry 3: another build identity in its header.
printf 'plumb-rt 0123456789abcdef\000' | dd of="$c/$e3" bs=1 seek=16 conv=notrunc 2> /dev/null
# Entry 4: stays valid. Then things prune must never touch:
echo "notes" > "$c/notes.txt"
echo "junk" > "$c/0123.plumbc"
mkdir "$c/ffffffffffffffffffffffffffffffff.plumbc"
cp "$c/$e4" "$tmp/outside.plumbc"
ln -s "$tmp/outside.plumbc" "$c/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.plumbc"
ln -s "$e4" "$c/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.plumbc"
# An entry-named file that is not a plumb entry at all.
echo "not an entry" > "$c/cccccccccccccccccccccccccccccccc.plumbc"
# A valid entry copied under another key's name: its header names another key.
cp "$c/$e4" "$c/dddddddddddddddddddddddddddddddd.plumbc"

run "$PLUMB" cache ls --dir "$c"
expect_rc "ls exits 0 whatever the entries' states" 0
line_has "$tmp/out" "$k1" "corrupt: authentication failed (changed after it was written)" "ls: the flipped byte fails authentication"
line_has "$tmp/out" "$k2" "corrupt: truncated: 300 bytes, its header says $size2" "ls: the truncated entry, with both sizes"
line_has "$tmp/out" "$k3" "stale: written by another build ('plumb-rt 0123456789abcdef'; this build is 'plumb-rt " "ls: the other build identity is stale, named"
line_has "$tmp/out" "$k4" "valid  @main (module @m4)" "ls: the untouched entry is still valid"
line_has "$tmp/out" "cccccccccccccccccccccccccccccccc" "foreign: not a plumb cache entry (no PLUMBRTC magic)" "ls: a file without the magic is foreign"
line_has "$tmp/out" "dddddddddddddddddddddddddddddddd" "foreign: its header's key $k4 is not the key in its name" "ls: an entry under another key's name is foreign"
hasnt "$tmp/out" "aaaaaaaaaaaaaaaa" "ls: a link named like an entry is not read"
hasnt "$tmp/out" "notes.txt" "ls: a file not named like an entry is not listed"
has "$tmp/out" "6 entries, " "ls totals: 6 entries"
has "$tmp/out" "1 valid, 1 stale, 2 foreign, 2 corrupt; 5 other files ignored" "ls totals by state; the 5 others ignored"

run "$PLUMB" cache ls --json --dir "$c"
if command -v jq > /dev/null 2>&1; then
    if jq -e '.totals.entries == 6 and .totals.valid == 1 and .totals.corrupt == 2 and .totals.ignored == 5
              and ([.entries[] | select(.state == "stale")] | length) == 1
              and (.entries[] | select(.key == "'"$k4"'") | .entry == "main" and .module == "m4")' \
        "$tmp/out" > /dev/null; then
        ok "ls --json: entries and totals"
    else
        fail "ls --json: entries and totals"
    fi
else
    has "$tmp/out" '"totals": {"entries": 6,' "ls --json: totals (jq missing: text check)"
fi

run "$PLUMB" cache verify --dir "$c"
expect_rc "verify exits 1 with bad entries" 1
line_has "$tmp/out" "$k1" "corrupt: authentication failed" "verify reports the flipped byte"
line_has "$tmp/out" "$k2" "corrupt: truncated" "verify reports the truncated entry"
line_has "$tmp/out" "$k3" "stale: written by another build" "verify reports the other build's entry"
if grep -q "^$k4" "$tmp/out"; then fail "verify does not list the valid entry"; else ok "verify does not list the valid entry"; fi
has "$tmp/out" "verify: 6 entries checked, 1 rebuilt from their stored program, 5 bad" "verify's summary"

run "$PLUMB" cache prune --dir "$c"
expect_rc "prune exits 0" 0
has "$tmp/out" "prune: removed 5 invalid entries" "prune removes the 5 invalid entries"
gone "$c/$e1" "prune removed the flipped entry"
gone "$c/$e2" "prune removed the truncated entry"
gone "$c/$e3" "prune removed the other build's entry"
gone "$c/cccccccccccccccccccccccccccccccc.plumbc" "prune removed the entry-named non-entry"
exists "$c/$e4" "prune kept the valid entry"
exists "$c/notes.txt" "prune left a file not named like an entry"
exists "$c/0123.plumbc" "prune left a short .plumbc name"
exists "$c/ffffffffffffffffffffffffffffffff.plumbc" "prune left a folder named like an entry"
exists "$c/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.plumbc" "prune left a link named like an entry"
exists "$tmp/outside.plumbc" "prune left the link's target"
exists "$c/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.plumbc" "prune left a link to a valid entry"
# the remaining entry is still served: a warm start, no compile
PLUMB_CACHE_DIR="$c" run "$PLUMB" run --backend runtime --random-inputs --stats "$tmp/p4.mlir"
has "$tmp/err" "stats total: 1 programs, 1 compiles (0 recompiles), 0 cache hits, 1 disk hits, 0 disk rejects" \
    "the valid entry prune kept is still served from disk"

# --max-bytes: LRU eviction of valid entries. Entries 1..3 rebuilt, with
# entry 1 used last; keep room for one entry only.
e1=$(entry_of 1); e2=$(entry_of 2); e3=$(entry_of 3)
touch -d '2020-01-01' "$c/$e2" "$c/$e3" "$c/$e4"
run "$PLUMB" cache prune --max-bytes "$size1" --dir "$c"
expect_rc "prune --max-bytes exits 0" 0
has "$tmp/out" "prune: removed 0 invalid entries (0 bytes), evicted 3 least recently used" "prune --max-bytes evicts 3 of 4"
exists "$c/$e1" "the most recently used entry stays"
gone "$c/$e2" "an older entry is evicted"
exists "$c/notes.txt" "eviction leaves other files alone"

e2=$(entry_of 2)
run "$PLUMB" cache clear --json --dir "$c"
expect_rc "clear exits 0" 0
has "$tmp/out" '"removed_entries": 2,' "clear --json: two entries removed"
gone "$c/$e1" "clear removed entry 1"
gone "$c/$e2" "clear removed entry 2"
exists "$c/notes.txt" "clear left a file not named like an entry"
exists "$c/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.plumbc" "clear left a link named like an entry"
exists "$c/ffffffffffffffffffffffffffffffff.plumbc" "clear left a folder"
exists "$tmp/outside.plumbc" "clear left the link's target"
run "$PLUMB" cache clear --dir "$c"
has "$tmp/out" "clear: removed 0 entries, 0 bytes; 5 other files left alone" "clear on an empty cache"

# Errors: exit 2 and what is wrong.
run "$PLUMB" cache ls --dir "$tmp/nope"
expect_rc "a missing directory exits 2" 2
has "$tmp/err" "cache directory '$tmp/nope' does not exist" "a missing directory is named"
mkdir "$tmp/open"; chmod 0777 "$tmp/open"
run "$PLUMB" cache prune --dir "$tmp/open"
expect_rc "a directory every user can write exits 2" 2
has "$tmp/err" "is writable by every user (mode 0777)" "the trust rule's reason is given"
env -u PLUMB_CACHE_DIR "$PLUMB" cache ls > "$tmp/out" 2> "$tmp/err"; rc=$?
expect_rc "no directory at all exits 2" 2
has "$tmp/err" "no cache directory: give --dir DIR or set PLUMB_CACHE_DIR" "no directory: what to do"
run "$PLUMB" cache frob --dir "$c"
expect_rc "an unknown subcommand exits 2" 2
run "$PLUMB" cache ls --max-bytes 1 --dir "$c"
expect_rc "--max-bytes outside prune exits 2" 2
if [ "$(id -u)" = 0 ]; then
    mkdir "$tmp/theirs"; chmod 0700 "$tmp/theirs"; chown 65534 "$tmp/theirs"
    run "$PLUMB" cache ls --dir "$tmp/theirs"
    expect_rc "a directory owned by another user exits 2" 2
    has "$tmp/err" "is owned by uid 65534, not by this user" "the owner is named"
else
    mkdir "$tmp/noread"; chmod 0300 "$tmp/noread"
    run "$PLUMB" cache ls --dir "$tmp/noread"
    expect_rc "an unreadable directory exits 2" 2
    has "$tmp/err" "cache directory '$tmp/noread'" "the unreadable directory is named"
fi
run "$PLUMB" cache --help
has "$tmp/out" "exit codes:" "--help lists the exit codes"

finish
