#!/bin/bash -eu
# Builds plumb's fuzz targets (fuzz/targets/) the way ClusterFuzzLite and
# OSS-Fuzz build a project: compiled with $CC $CFLAGS, linked with $CXX
# $CXXFLAGS $LIB_FUZZING_ENGINE, every binary in $OUT with its seed corpus
# ($OUT/<target>_seed_corpus.zip) and dictionary ($OUT/<target>.dict).
# Run from the source tree (the Dockerfile's WORKDIR; `make fuzz-targets`
# runs it from the top of the tree with the same variables). The plumb
# library is built from source with the same flags into $WORK; xxHash,
# MPFR, GMP and GSL are linked statically when their .a files are
# installed (Debian's -dev packages have them), since the runners have
# none of these libraries. Nothing is built for the build machine's CPU
# (no -march=native anywhere): the runtime picks its kernels at run time.
# Written for dash as well as bash.
set -eu
: "${CC:?}" "${CXX:?}" "${CFLAGS:?}" "${LIB_FUZZING_ENGINE:?}" "${OUT:?}"
CXXFLAGS=${CXXFLAGS:-}
WORK=${WORK:-$OUT/work}
JOBS=${FUZZ_JOBS:-2}
root=$(pwd)
if [ ! -f "$root/Makefile" ] || [ ! -d "$root/fuzz/targets" ]; then
    echo "build.sh: run it from the top of the plumb tree (no Makefile and fuzz/targets in $root)" >&2
    exit 1
fi
lib=$WORK/plumb-lib
obj=$WORK/fuzz-obj
mkdir -p "$OUT" "$lib" "$obj"

# xxHash from source when the Dockerfile fetched it ($SRC/xxhash: the XXH3
# API needs xxHash >= 0.8), compiled with the fuzzing flags; else the
# installed one.
xxinc=""
xxlib=""
if [ -f "${SRC:-/nonexistent}/xxhash/xxhash.c" ]; then
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "$SRC/xxhash/xxhash.c" -o "$obj/xxhash.o"
    rm -f "$obj/libxxhash.a"
    ar rcs "$obj/libxxhash.a" "$obj/xxhash.o"
    xxinc="-I$SRC/xxhash"
    xxlib="$obj/libxxhash.a"
fi

# The library, with the project's own flags plus ours; -Wno-error: a newer
# clang's new warnings must not stop a fuzzing build.
make -C "$root" -j"$JOBS" BUILD="$lib" CC="$CC" CFLAGS="$CFLAGS" EXTRA_CFLAGS="-Wno-error $xxinc" "$lib/libplumb.a"

# Static archives where installed, else the shared library.
deplibs="$xxlib"
for l in xxhash mpfr gmp gsl gslcblas; do
    if [ "$l" = xxhash ] && [ -n "$xxlib" ]; then continue; fi
    a=$($CC -print-file-name="lib$l.a")
    if [ -f "$a" ]; then deplibs="$deplibs $a"; else deplibs="$deplibs -l$l"; fi
done

std="-std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -ffp-contract=off -fno-fast-math -fno-strict-aliasing"
inc="$xxinc -I$root/include -I$root/conformance -I$root/runtime -I$root/fuzz/targets"
# shellcheck disable=SC2086
$CC $CFLAGS $std $inc -c "$root/fuzz/targets/target_util.c" -o "$obj/target_util.o"

# The dictionary of each target (several share the syntax's).
dict_of() {
    case "$1" in
        parse|program_diff) echo parse ;;
        report_json) echo json ;;
        *) echo "$1" ;;
    esac
}

zip_dir() { # $1 = corpus folder, $2 = zip file
    rm -f "$2"
    if command -v zip > /dev/null 2>&1; then
        (cd "$1" && zip -q -r "$2" .)
    else
        python3 -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w") as z:
    for n in sorted(os.listdir(sys.argv[1])):
        z.write(os.path.join(sys.argv[1], n), n)' "$1" "$2"
    fi
}

n=0
for src in "$root"/fuzz/targets/*.c; do
    t=$(basename "$src" .c)
    case "$t" in target_util|replay_main) continue ;; esac
    # shellcheck disable=SC2086
    $CC $CFLAGS $std $inc -c "$src" -o "$obj/$t.o"
    # shellcheck disable=SC2086
    $CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$obj/$t.o" "$obj/target_util.o" "$lib/libplumb.a" $deplibs \
        -lm -lpthread -ldl -o "$OUT/$t"
    if [ -d "$root/fuzz/corpus/$t" ]; then
        zip_dir "$root/fuzz/corpus/$t" "$OUT/${t}_seed_corpus.zip"
    fi
    d=$(dict_of "$t")
    if [ -f "$root/fuzz/dict/$d.dict" ]; then
        cp "$root/fuzz/dict/$d.dict" "$OUT/$t.dict"
    fi
    n=$((n + 1))
done
echo "build.sh: $n fuzz targets in $OUT"
