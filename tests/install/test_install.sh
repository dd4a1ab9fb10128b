#!/bin/sh
# make install into a staging folder (DESTDIR, PREFIX=/opt/plumb): every
# file lands where docs/install.md says, the shared library carries its
# soname, plumb.pc leads pkg-config to the installed headers and library,
# the man page and bash completion are generated from --help, and the
# backend template, copied out of the tree, builds against the installed
# plumb (pkg-config) and a source tree (PLUMB_SRC=) and is certified by the
# installed plumb. Then make uninstall leaves nothing, and an install into
# a path that cannot be created fails naming it.
# Ends with "N passed, N failed".
# A sanitizer build (make asan) installs objects built with -fsanitize: a
# shared library of them cannot be linked without the sanitizer runtime nor
# loaded by an unsanitized program, so install is tested by the plain
# make check only.
if [ "${SANITIZED:-no}" = yes ]; then
    echo "skipped: make install under a sanitizer build (the plain make check runs it)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
BUILD=${BUILD:-build}
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); echo "ok - $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [ -s "$tmp/err" ]; then sed 's/^/    /' "$tmp/err" | tail -n 5; fi
}
src=$(pwd)
stage=$tmp/stage
P=$stage/opt/plumb
mk() { make --no-print-directory BUILD="$BUILD" PREFIX=/opt/plumb "$@"; }

if mk install DESTDIR="$stage" > "$tmp/err" 2>&1; then ok "make install"; else bad "make install"; fi
for f in bin/plumb lib/libplumb.a lib/libplumb.so lib/libplumb.so.0 include/plumb/backend.h \
         include/plumb/ir.h include/plumb/ops.def lib/pkgconfig/plumb.pc share/man/man1/plumb.1 \
         share/bash-completion/completions/plumb; do
    if [ -e "$P/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
# the real file behind the two symlinks is versioned, and its soname is the major
real=$(ls "$P"/lib/libplumb.so.0.* 2> /dev/null | head -n 1)
if [ -n "$real" ] && [ "$(readlink "$P/lib/libplumb.so.0")" = "${real##*/}" ]; then ok "libplumb.so.0 -> ${real##*/}"
else bad "libplumb.so.0 does not point at a versioned file"; fi
if [ -n "$real" ] && readelf -d "$real" | grep -q 'SONAME.*\[libplumb\.so\.0\]'; then ok "soname libplumb.so.0"
else bad "soname is not libplumb.so.0"; fi
# plumb.pc records PREFIX, not the staging folder
if grep -qx 'prefix=/opt/plumb' "$P/lib/pkgconfig/plumb.pc"; then ok "plumb.pc prefix"; else bad "plumb.pc prefix"; fi
"$P/bin/plumb" --version > "$tmp/out" 2> "$tmp/err" && grep -q '^plumb [0-9]' "$tmp/out" && ok "installed plumb runs" \
    || bad "installed plumb --version"

# pkg-config through the staging folder (SYSROOT maps /opt/plumb into it)
export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
flags=$(pkg-config --cflags --libs plumb 2> "$tmp/err")
case "$flags" in
*"-I$P/include"*"-L$P/lib"*"-lplumb"*) ok "pkg-config --cflags --libs plumb" ;;
*) bad "pkg-config gave '$flags'" ;;
esac

# A program using the installed headers (ops.h expands the installed
# ops.def) links the shared library and parses a program with it.
cat > "$tmp/use.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <plumb/ir.h>
int main(void)
{
    const char *t = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                    "  %r = stablehlo.add %a, %a : tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n";
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(t, strlen(t), "use.mlir", NULL, &d);
    if (!m || !ir_module_find_func(m, "main"))
        return 1;
    ir_module_free(m);
    puts("parsed");
    return 0;
}
EOC
if cc -std=c11 -o "$tmp/use" "$tmp/use.c" $flags > "$tmp/err" 2>&1 &&
   LD_LIBRARY_PATH="$P/lib" "$tmp/use" > "$tmp/out" 2> "$tmp/err" && grep -qx parsed "$tmp/out"; then
    ok "a program links libplumb.so through pkg-config"
else bad "a program linked with pkg-config --cflags --libs plumb"; fi
if readelf -d "$tmp/use" 2> /dev/null | grep -q 'NEEDED.*\[libplumb\.so\.0\]'; then ok "linked against the soname"
else bad "the program does not need libplumb.so.0"; fi

# the template, copied out of the tree, builds unchanged against the install
mkdir -p "$tmp/tpl"
cp "$src/examples/backend/Makefile" "$src/examples/backend/minicpu.c" "$tmp/tpl/"
if make -s -C "$tmp/tpl" > "$tmp/err" 2>&1 && [ -f "$tmp/tpl/minicpu.so" ]; then ok "template builds via pkg-config"
else bad "template build via pkg-config"; fi
"$P/bin/plumb" certify --backend "$tmp/tpl/minicpu.so" --suite quick --out "$tmp/rep" > "$tmp/out" 2> "$tmp/err"
rc=$?
last=$(tail -n 1 "$tmp/out")
if [ "$rc" = 0 ] && echo "$last" | grep -Eq '^certify: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'; then
    ok "installed plumb certifies the template ($last)"
else bad "certify of the template: exit $rc, last line '$last'"; fi
# ... and against a source tree, without pkg-config's help
make -s -C "$tmp/tpl" clean > /dev/null 2>&1
if env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR make -s -C "$tmp/tpl" PLUMB_SRC="$src" > "$tmp/err" 2>&1 &&
   [ -f "$tmp/tpl/minicpu.so" ]; then ok "template builds with PLUMB_SRC="
else bad "template build with PLUMB_SRC="; fi
# ... and with neither, it says what to set
make -s -C "$tmp/tpl" clean > /dev/null 2>&1
if env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR="$tmp/none" make -s -C "$tmp/tpl" > "$tmp/out" 2>&1; then
    : > "$tmp/err"; bad "template built with no plumb to find"
elif grep -q 'plumb/backend.h not found.*PLUMB_SRC=DIR' "$tmp/out"; then ok "template without plumb names PLUMB_SRC"
else cp "$tmp/out" "$tmp/err"; bad "template without plumb: unexpected message"; fi

# the man page and the completion come from --help
if grep -q '^\.TH PLUMB 1' "$P/share/man/man1/plumb.1" && grep -q '^\.SS "plumb run"' "$P/share/man/man1/plumb.1" &&
   grep -q 'max-bytes' "$P/share/man/man1/plumb.1"; then ok "man page sections"; else bad "man page"; fi
comp=$P/share/bash-completion/completions/plumb
if bash -c ". '$comp'; COMP_WORDS=(plumb run --en); COMP_CWORD=2; _plumb; echo \"\${COMPREPLY[*]}\"" > "$tmp/out" 2> "$tmp/err" &&
   grep -qx -- '--entry' "$tmp/out"; then ok "completion: plumb run --en -> --entry"
else bad "completion of run options: '$(cat "$tmp/out")'"; fi
if bash -c ". '$comp'; COMP_WORDS=(plumb cer); COMP_CWORD=1; _plumb; echo \"\${COMPREPLY[*]}\"" > "$tmp/out" 2> "$tmp/err" &&
   grep -qx 'certify' "$tmp/out"; then ok "completion: plumb cer -> certify"
else bad "completion of commands: '$(cat "$tmp/out")'"; fi

# uninstall removes every file it installed
if mk uninstall DESTDIR="$stage" > "$tmp/err" 2>&1; then ok "make uninstall"; else bad "make uninstall"; fi
left=$(find "$stage" ! -type d | head -n 5)
if [ -d "$P/bin" ] && [ -z "$left" ]; then ok "nothing left after uninstall"; else echo "$left" > "$tmp/err"; bad "files left after uninstall"; fi

# a prefix that cannot be created (a regular file in the way): fails naming it
: > "$tmp/afile"
if mk install-files DESTDIR="$tmp/afile" > "$tmp/out" 2>&1; then : > "$tmp/err"; bad "install into a file succeeded"
elif grep -q "cannot write to '$tmp/afile/opt/plumb/bin'" "$tmp/out"; then ok "unwritable prefix named"
else cp "$tmp/out" "$tmp/err"; bad "unwritable prefix: message"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
