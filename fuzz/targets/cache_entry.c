/* Fuzz target "cache_entry": the runtime's disk-cache entry reader
 * (rt_disk_load, runtime/cache.c) and the loader of the optimized program
 * an entry holds (rt_program_load), through files in a private directory.
 *
 * One fixed program is looked up: its canonical serialization and key are
 * built once (LLVMFuzzerInitialize), together with the entry the runtime
 * itself writes for it. The first byte of an input picks what the rest is:
 *
 *   0x01  the optimized program text: wrapped in a valid entry (by
 *         rt_disk_store), which must load back to the same text; then
 *         rt_program_load reads it (it must verify it, never crash);
 *   0x02  corruptions of the valid entry: groups of 3 bytes (u16 offset,
 *         xor mask) flip bits, and a lone trailing byte n truncates n + 1
 *         bytes; the reader must refuse any result that differs from the
 *         valid entry (a corrupted entry is never served);
 *   else  the whole input is the entry file. Whatever the reader accepts
 *         must be byte for byte the entry rt_disk_store writes for the text
 *         it returned (it accepts only what the runtime wrote), and the text
 *         goes through rt_program_load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "rt_pipeline.h"
#include "target.h"

static const char program[] =
    "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.add %a, %b : tensor<4xf32>\n"
    "  %1 = stablehlo.multiply %0, %a : tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n";

static rt_canon canon;
static rt_key_ctx kc = {PLUMB_ISA_PORTABLE, 2};
static uint64_t key[2];
static char entry_path[4400];
static uint8_t *valid;          /* the entry the runtime writes for the program */
static size_t valid_len;
static rt_compile_opts co;

static uint8_t *read_all(const char *path, size_t *len)
{
    plumb_diag d = {.code = PLUMB_OK};
    char *p = plumb_read_file(path, 0, len, &d);
    if (!p)
        fuzz_fail("cannot read back '%s': %s", path, d.msg);
    uint8_t *copy = malloc(*len ? *len : 1);
    if (!copy)
        fuzz_fail("out of memory");
    memcpy(copy, p, *len);
    plumb_free(p, *len + 1);
    return copy;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tmpdir();
    plumb_diag d = {.code = PLUMB_OK};
    ir_parse_options po = {.struct_size = sizeof po, .max_bytes = FUZZ_MAX_BYTES};
    ir_module *m = ir_parse(program, sizeof program - 1, "cache_entry", &po, &d);
    ir_verify_options vo = {.struct_size = sizeof vo, .max_bytes = FUZZ_MAX_BYTES};
    if (!m || !ir_verify(m, &vo, &d))
        fuzz_fail("the fixed program does not parse or verify: %s", d.msg);
    if (!rt_canon_build(&canon, m, m->funcs[0], &kc, &d))
        fuzz_fail("cannot serialize the fixed program: %s", d.msg);
    rt_canon_key(&canon, key);
    co = (rt_compile_opts){.opt_level = kc.opt_level, .isa = kc.isa, .max_bytes = FUZZ_MAX_BYTES,
                           .pool = NULL, .want_text = true};
    rt_program *p = rt_program_compile(m, m->funcs[0], &co, &d);
    if (!p || !p->opt_text)
        fuzz_fail("cannot compile the fixed program: %s", d.msg);
    if (!rt_disk_store(dir, key, &canon, &kc, p->opt_text, p->opt_text_len, &d))
        fuzz_fail("cannot store the fixed program's entry: %s", d.msg);
    co.want_text = false;
    rt_program_free(p);
    ir_module_free(m);
    if (!rt_disk_path(dir, key, entry_path, sizeof entry_path))
        fuzz_fail("temporary directory path too long");
    valid = read_all(entry_path, &valid_len);
    return 0;
}

/* rt_program_load on text that came out of an entry: refusing is fine. */
static void load_program(const char *text, size_t len)
{
    plumb_diag d = {.code = PLUMB_OK};
    rt_program *p = rt_program_load(text, len, &co, &d);
    if (p)
        rt_program_free(p);
    else if (!d.msg[0])
        fuzz_fail("rt_program_load refused a cached text without saying why");
}

static char *lookup(size_t *len, const char **why)
{
    *len = 0;
    return rt_disk_load(fuzz_tmpdir(), key, &canon, &kc, len, why);
}

static void put_entry(const void *data, size_t size)
{
    FILE *f = fopen(entry_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write '%s'", entry_path);
}

static void mode_text(const uint8_t *data, size_t size)
{
    plumb_diag d = {.code = PLUMB_OK};
    char *in = plumb_strndup((const char *)data, size);
    if (!in)
        return;
    if (!rt_disk_store(fuzz_tmpdir(), key, &canon, &kc, in, size, &d))
        fuzz_fail("cannot store an entry: %s", d.msg);
    size_t len;
    const char *why;
    char *text = lookup(&len, &why);
    if (!text)
        fuzz_fail("an entry rt_disk_store just wrote is refused: %s", why);
    if (len != size || memcmp(text, in, size) != 0)
        fuzz_fail("an entry loads back with other text (%zu bytes stored, %zu read)", size, len);
    load_program(text, len);
    plumb_free(text, len + 1);
    plumb_free(in, size + 1);
}

static void mode_corrupt(const uint8_t *data, size_t size)
{
    uint8_t *e = malloc(valid_len);
    if (!e)
        return;
    memcpy(e, valid, valid_len);
    size_t n = valid_len, i = 0;
    for (; i + 3 <= size; i += 3)
        e[(((size_t)data[i] | (size_t)data[i + 1] << 8)) % valid_len] ^= data[i + 2];
    if (i < size)
        n = valid_len - ((size_t)data[i] + 1 < valid_len ? (size_t)data[i] + 1 : valid_len);
    put_entry(e, n);
    size_t len;
    const char *why;
    char *text = lookup(&len, &why);
    bool same = n == valid_len && memcmp(e, valid, n) == 0;
    if (text && !same)
        fuzz_fail("a corrupted entry (%zu of %zu bytes, %zu edits) was served", n, valid_len, size / 3);
    if (!text && same)
        fuzz_fail("the valid entry was refused: %s", why);
    if (text)
        plumb_free(text, len + 1);
    free(e);
}

static void mode_raw(const uint8_t *data, size_t size)
{
    put_entry(data, size);
    size_t len;
    const char *why;
    char *text = lookup(&len, &why);
    if (!text)
        return;
    /* Accepted: it must be exactly what the runtime writes for that text. */
    plumb_diag d = {.code = PLUMB_OK};
    if (!rt_disk_store(fuzz_tmpdir(), key, &canon, &kc, text, len, &d))
        fuzz_fail("cannot store an entry: %s", d.msg);
    size_t wlen;
    uint8_t *want = read_all(entry_path, &wlen);
    if (wlen != size || memcmp(want, data, size) != 0)
        fuzz_fail("the reader accepted an entry the runtime would not write (%zu bytes; the runtime's: %zu)", size,
                  wlen);
    free(want);
    load_program(text, len);
    plumb_free(text, len + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 1 && data[0] == 0x01)
        mode_text(data + 1, size - 1);
    else if (size >= 1 && data[0] == 0x02)
        mode_corrupt(data + 1, size - 1);
    else
        mode_raw(data, size);
    return 0;
}
