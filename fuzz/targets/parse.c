/* Fuzz target "parse": the StableHLO text parser, printer and verifier.
 *
 * Oracle (the printer's promise, include/plumb/ir.h): for any text the
 * parser accepts, its canonical print parses again, and printing that
 * gives the same bytes (print(parse(print(m))) == print(m)). The verifier
 * runs on both modules and must give the same verdict: it judges the
 * program, not its spelling. Rejected inputs are fine; crashes, sanitizer
 * reports and oracle violations are findings. */
#include <stdio.h>
#include <string.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static bool verifies(const ir_module *m)
{
    ir_verify_options vo = {.struct_size = sizeof vo, .max_bytes = FUZZ_MAX_BYTES};
    plumb_diag d = {.code = PLUMB_OK};
    return ir_verify(m, &vo, &d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ir_parse_options po = {.struct_size = sizeof po, .max_depth = 0, .max_bytes = FUZZ_MAX_BYTES};
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse((const char *)data, size, "input", &po, &d);
    if (!m) {
        /* A rejection must say why: an empty message is a parser bug. */
        if (d.code == PLUMB_OK || !d.msg[0])
            fuzz_fail("parse rejected the input without an error message (code %s)", plumb_code_name(d.code));
        return 0;
    }
    plumb_buf p1, p2;
    plumb_buf_init(&p1);
    plumb_buf_init(&p2);
    ir_module *m2 = NULL;
    ir_print(&p1, m);
    if (p1.failed)   /* out of memory: nothing to compare */
        goto out;
    plumb_diag d2 = {.code = PLUMB_OK};
    m2 = ir_parse(p1.data ? p1.data : "", p1.len, "printed", &po, &d2);
    if (!m2) {
        fprintf(stderr, "--- printed text ---\n%.*s\n---\n", (int)p1.len, p1.data ? p1.data : "");
        fuzz_fail("the canonical print does not parse: %u:%u: %s", d2.loc.line, d2.loc.col, d2.msg);
    }
    ir_print(&p2, m2);
    if (p2.failed)
        goto out;
    if (p1.len != p2.len || (p1.len && memcmp(p1.data, p2.data, p1.len) != 0)) {
        fprintf(stderr, "--- first print ---\n%.*s\n--- second print ---\n%.*s\n---\n", (int)p1.len, p1.data,
                (int)p2.len, p2.data);
        fuzz_fail("printing the re-parsed module gives different text (%zu vs %zu bytes)", p1.len, p2.len);
    }
    bool v1 = verifies(m), v2 = verifies(m2);
    if (v1 != v2)
        fuzz_fail("the verifier %s the input but %s its canonical print", v1 ? "accepts" : "rejects",
                  v2 ? "accepts" : "rejects");
out:
    if (m2)
        ir_module_free(m2);
    ir_module_free(m);
    plumb_buf_free(&p1);
    plumb_buf_free(&p2);
    return 0;
}
