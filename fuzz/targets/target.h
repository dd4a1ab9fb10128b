/* Shared by the coverage-guided fuzz targets (the .c files of fuzz/targets/): each file
 * defines LLVMFuzzerTestOneInput (and maybe LLVMFuzzerInitialize), built
 * either with clang's libFuzzer (make fuzz-targets, .clusterfuzzlite/) or
 * with replay_main.c, which runs the files of a corpus through it so that
 * make check replays every seed corpus with any C compiler.
 *
 * An oracle violation calls fuzz_fail: it prints why and aborts, which is
 * what libFuzzer (and AFL++, and the replay driver's caller) treat as a
 * finding. Inputs the code under test rejects are never findings. */
#ifndef PLUMB_FUZZ_TARGET_H
#define PLUMB_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Byte limit handed to parsers and loaders: small enough that an input can
 * never make a target allocate more than the fuzzer's RSS limit (2 GiB by
 * default) through a literal or a tensor file, large enough for any seed. */
#define FUZZ_MAX_BYTES ((uint64_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
/* Optional: a target's structure-aware mutator (program_diff has one).
 * libFuzzer calls it instead of its own byte mutations; the replay driver
 * runs it with --mutate N. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
/* libFuzzer's byte-level mutation, for a custom mutator to fall back on;
 * replay_main.c has a simple one of its own. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Prints "fuzz target <name>: <message>" on stderr and aborts. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A private directory (mode 0700) made once per process under $TMPDIR or
 * /tmp and removed at exit with everything in it; aborts when it cannot be
 * made (the target could not test anything). */
const char *fuzz_tmpdir(void);

/* Writes data to DIR/name (replacing it); aborts on an I/O error. */
void fuzz_write(const char *dir, const char *name, const void *data, size_t size);

#endif
