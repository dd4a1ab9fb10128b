/* Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
 * the conformance suite's generated cases (programs and their inputs) and
 * the runtime's own disk-cache entry. Run from the top of the tree after a
 * build (docs/fuzzing-targets.md, "Seed corpora"):
 *
 *   cc -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Iinclude \
 *      -Iconformance -Iruntime -o build/make_seeds fuzz/seeds/make_seeds.c \
 *      build/libplumb.a -lxxhash -lmpfr -lgmp -lgsl -lgslcblas -lm -lpthread -ldl
 *   build/make_seeds fuzz/corpus
 *
 * The programs of parse/ and program_diff/ are the first quick-suite case
 * of every generated op (seed 1) no larger than 2 KiB; report_json/ and
 * the hand-written files are made by tests/fuzz/ and by hand. Deterministic:
 * the same tree writes the same files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/ops.h"
#include "plumb/tensor.h"
#include "rt_pipeline.h"

static void put(const char *dir, const char *target, const char *name, const void *pre, size_t npre,
                const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (npre && fwrite(pre, 1, npre, f) != npre) || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "make_seeds: cannot write '%s'\n", path);
        exit(1);
    }
}

/* Must stay the program of fuzz/targets/cache_entry.c. */
static const char cache_program[] =
    "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.add %a, %b : tensor<4xf32>\n"
    "  %1 = stablehlo.multiply %0, %a : tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n";

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char name[256];
    uint32_t n_prog = 0, n_tns = 0;
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        if (!conf_op_generated((plumb_opcode)op))
            continue;
        conf_cases cs;
        plumb_diag d = {.code = PLUMB_OK};
        if (!conf_generate((plumb_opcode)op, CONF_SUITE_QUICK, 1, 0, 1, &cs, &d)) {
            fprintf(stderr, "make_seeds: %s: %s\n", plumb_op_name((plumb_opcode)op), d.msg);
            return 1;
        }
        for (uint32_t i = 0; i < cs.n; i++) {
            const conf_case *c = &cs.v[i];
            size_t len = strlen(c->program);
            if (len > 2048)
                continue;
            snprintf(name, sizeof name, "%s.mlir", plumb_op_short_name((plumb_opcode)op));
            put(dir, "program_diff", name, NULL, 0, c->program, len);
            if (n_prog % 2 == 0)
                put(dir, "parse", name, NULL, 0, c->program, len);
            n_prog++;
            /* The first input of every third op, in both forms. */
            if (c->n_inputs && op % 3 == 0 && c->inputs[0]->nbytes <= 1024) {
                size_t blen;
                void *bin = plumb_tensor_serialize(c->inputs[0], &blen, &d);
                if (!bin)
                    return 1;
                snprintf(name, sizeof name, "%s.tns", plumb_op_short_name((plumb_opcode)op));
                put(dir, "tensorfile", name, NULL, 0, bin, blen);
                /* 0x01: the target recomputes the checksum (mutations reach the payload) */
                snprintf(name, sizeof name, "%s.fixsum", plumb_op_short_name((plumb_opcode)op));
                put(dir, "tensorfile", name, "\x01", 1, bin, blen);
                plumb_free(bin, blen);
                plumb_buf b;
                plumb_buf_init(&b);
                plumb_dense_print(&b, c->inputs[0], false);
                plumb_buf_puts(&b, " : ");
                plumb_tensor_type_print(&b, c->inputs[0]);
                plumb_buf_puts(&b, "\n");
                snprintf(name, sizeof name, "%s.txt", plumb_op_short_name((plumb_opcode)op));
                put(dir, "tensorfile", name, NULL, 0, b.data, b.len);
                plumb_buf_free(&b);
                n_tns++;
            }
            break;
        }
        conf_cases_free(&cs);
    }

    /* cache_entry: the runtime's entry for the target's program, raw; its
     * optimized text (0x01); and a few corruptions of it (0x02). */
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(cache_program, sizeof cache_program - 1, "cache", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) {
        fprintf(stderr, "make_seeds: %s\n", d.msg);
        return 1;
    }
    rt_key_ctx kc = {PLUMB_ISA_PORTABLE, 2};
    rt_canon canon;
    memset(&canon, 0, sizeof canon);
    uint64_t key[2];
    rt_compile_opts co = {2, PLUMB_ISA_PORTABLE, (uint64_t)64 << 20, NULL, true};
    rt_program *p = NULL;
    if (!rt_canon_build(&canon, m, m->funcs[0], &kc, &d) || !(p = rt_program_compile(m, m->funcs[0], &co, &d))) {
        fprintf(stderr, "make_seeds: %s\n", d.msg);
        return 1;
    }
    rt_canon_key(&canon, key);
    char tmp[] = "/tmp/plumb-seeds.XXXXXX", path[4096];
    if (!mkdtemp(tmp) || !rt_disk_store(tmp, key, &canon, &kc, p->opt_text, p->opt_text_len, &d) ||
        !rt_disk_path(tmp, key, path, sizeof path)) {
        fprintf(stderr, "make_seeds: cannot write a cache entry: %s\n", d.msg);
        return 1;
    }
    size_t elen;
    char *entry = plumb_read_file(path, 0, &elen, &d);
    if (!entry)
        return 1;
    remove(path);
    remove(tmp);
    put(dir, "cache_entry", "entry.plumbc", NULL, 0, entry, elen);
    put(dir, "cache_entry", "text.opt", "\x01", 1, p->opt_text, p->opt_text_len);
    put(dir, "cache_entry", "text.orig", "\x01", 1, cache_program, sizeof cache_program - 1);
    put(dir, "cache_entry", "valid.edits", "\x02", 1, "", 0);
    put(dir, "cache_entry", "magic.edits", "\x02\x00\x00\x01", 4, "", 0);
    put(dir, "cache_entry", "length.edits", "\x02\x58\x00\x10", 4, "", 0);
    put(dir, "cache_entry", "truncate.edits", "\x02\x07", 2, "", 0);
    put(dir, "cache_entry", "body.edits", "\x02\xa0\x00\x20\xb0\x00\x01", 7, "", 0);
    plumb_free(entry, elen + 1);
    rt_program_free(p);
    rt_canon_free(&canon);
    ir_module_free(m);
    printf("make_seeds: %u programs, %u tensors, 8 cache inputs\n", n_prog, n_tns);
    return 0;
}
