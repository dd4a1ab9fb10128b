/* Fuzz target "tensorfile": the tensor file reader (binary and text forms,
 * plumb_tensor_load_mem, docs/tensor-files.md) from a memory buffer.
 *
 * The binary form ends with an XXH3-64 of everything before it, which a
 * fuzzer will practically never match; so an input whose first byte is
 * 0x01 is taken as "the rest is a binary file; fix its checksum first",
 * which lets mutations reach the header and payload checks behind it.
 * Any other input is read as is (a binary file starts with 'P', a text
 * one with 'd' or a comment).
 *
 * Oracle: a tensor that loads survives both written forms bit for bit:
 * serialize (binary) -> load -> equal, and dense<...> : type (text, as
 * plumb_tensor_save writes it) -> load -> equal. NaN payloads included:
 * the text form prints NaNs as hex bit patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "plumb/core.h"
#include "plumb/tensor.h"
#include "target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void reload_equal(const plumb_tensor *t, const void *buf, size_t len, const char *form)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *u = plumb_tensor_load_mem(buf, len, form, FUZZ_MAX_BYTES, &d);
    if (!u) {
        if (d.code == PLUMB_ERR_NOMEM)
            return;
        fprintf(stderr, "--- %s form (%zu bytes) ---\n%.*s\n---\n", form, len,
                strcmp(form, "text") == 0 ? (int)len : 0, (const char *)buf);
        fuzz_fail("a loaded tensor's %s form does not load back: %s", form, d.msg);
    }
    if (!plumb_tensor_equal(t, u))
        fuzz_fail("a loaded tensor's %s form loads back as a different tensor", form);
    plumb_tensor_free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *fixed = NULL;
    if (size >= 1 + 16 && data[0] == 0x01) {
        size--;
        if (!(fixed = malloc(size)))
            return 0;
        memcpy(fixed, data + 1, size);
        uint64_t h = XXH3_64bits(fixed, size - 8);
        for (int i = 0; i < 8; i++)   /* little-endian, as the format says */
            fixed[size - 8 + i] = (uint8_t)(h >> (8 * i));
        data = fixed;
    }
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *t = plumb_tensor_load_mem(data, size, "input", FUZZ_MAX_BYTES, &d);
    if (!t) {
        if (d.code == PLUMB_OK || !d.msg[0])
            fuzz_fail("the reader rejected the input without an error message");
        free(fixed);
        return 0;
    }
    size_t blen = 0;
    plumb_diag sd = {.code = PLUMB_OK};
    void *bin = plumb_tensor_serialize(t, &blen, &sd);
    if (bin) {
        reload_equal(t, bin, blen, "binary");
        plumb_free(bin, blen);
    }
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_dense_print(&b, t, false);
    plumb_buf_puts(&b, " : ");
    plumb_tensor_type_print(&b, t);
    plumb_buf_puts(&b, "\n");
    if (!b.failed)
        reload_equal(t, b.data, b.len, "text");
    plumb_buf_free(&b);
    plumb_tensor_free(t);
    free(fixed);
    return 0;
}
