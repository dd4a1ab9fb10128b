/* Fuzz target "program_diff": the reference interpreter against the
 * compiled runtime on a program read from the input (StableHLO text).
 *
 * Programs outside a small budget are skipped, not run: @main with static
 * types only, at most FUZZ_MAX_OPS ops and FUZZ_MAX_ELEMS elements over
 * every parameter and op result. Inputs come from a generator seeded with
 * the input's hash (a mix of small exact values, specials and random bit
 * patterns), so a finding replays from the input file alone.
 *
 * Oracle, strongest that applies:
 *   - @main is one op on its parameters (the shape of a conformance case):
 *     the conformance checker judges the runtime's results under the op's
 *     bound with the runtime's declared capabilities (conf_check_case);
 *   - every op of the program (regions included) is of agreement class
 *     EXACT (ir/ops.def): the results must be bitwise equal (any NaN
 *     matches any NaN: payloads of arithmetic are not part of the contract);
 *   - otherwise (a bounded op inside a larger program) nothing numeric is
 *     asserted: bounds compound across ops and the program-level oracle
 *     with localization lives in the fuzzer proper (`plumb fuzz`).
 * Always: when the reference runs a program, the runtime must run it too
 * (only resource limits and timeouts excuse a failure), with as many
 * results of the same types.
 *
 * Structure-aware mutator (LLVMFuzzerCustomMutator): parses the input and
 * changes the program, not its bytes — an elementwise op becomes another
 * of the same arity, an operand is rewired to an earlier value of the same
 * type, a constant's bit flips, a comparison changes direction — keeps
 * the change only if the module still verifies, and prints it canonically.
 * Inputs that do not parse, or that no mutation applies to, get libFuzzer's
 * byte mutations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "conf.h"
#include "plumb/core.h"
#include "plumb/checkcmp.h"
#include "plumb/dtype.h"
#include "plumb/ir.h"
#include "plumb/ops.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "plumb/tensor.h"
#include "target.h"

#define FUZZ_MAX_OPS 64
#define FUZZ_MAX_ELEMS 4096
#define FUZZ_PROGRAM_BYTES ((uint64_t)1 << 20)
#define FUZZ_TIMEOUT_S 2.0

static plumb_runtime *rt;
static FILE *null_log;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* No disk cache and no recompile log: every input is a new program. */
    unsetenv("PLUMB_CACHE_DIR");
    unsetenv("PLUMB_LOG");
    /* Check failures are described here and thrown away: ClusterFuzz's
     * runners have no /dev, only /tmp is writable. */
    char path[4400];
    snprintf(path, sizeof path, "%s/checks.log", fuzz_tmpdir());
    null_log = fopen(path, "w+");
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.max_bytes = FUZZ_MAX_BYTES;
    o.timeout_s = FUZZ_TIMEOUT_S;
    o.log = null_log;
    plumb_diag d = {.code = PLUMB_OK};
    if (!null_log || !(rt = plumb_runtime_create(&o, &d)))
        fuzz_fail("cannot create the runtime: %s", d.msg);
    return 0;
}

static uint64_t type_numel(const ir_type *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n *= (uint64_t)t->dims[i];
    return n;
}

typedef struct budget {
    uint32_t ops;
    uint64_t elems;
    bool dynamic;      /* a '?' dimension somewhere */
    bool all_exact;    /* every op is of agreement class EXACT */
} budget;

static bool count_op(ir_op *op, void *ud)
{
    budget *b = ud;
    b->ops++;
    if (plumb_op_get(op->code)->agree != PLUMB_AGREE_EXACT)
        b->all_exact = false;
    for (uint32_t i = 0; i < op->n_results; i++) {
        const ir_type *t = &op->results[i]->type;
        if (!ir_type_is_static(t)) {
            b->dynamic = true;
            return false;
        }
        b->elems += type_numel(t);
        if (b->elems > FUZZ_MAX_ELEMS)
            return false;
    }
    return b->ops <= FUZZ_MAX_OPS;
}

/* splitmix64: the input generator's stream. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t float_bits(plumb_dtype t, double x)
{
    float f = (float)x;
    uint32_t u32;
    uint64_t u64;
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: memcpy(&u32, &f, 4); return u32;
    default: memcpy(&u64, &x, 8); return u64;
    }
}

/* One element: a small exact value most of the time (so that integer
 * indices land in range and sums stay exact), a special or a random bit
 * pattern otherwise. */
static uint64_t gen_elem(plumb_dtype t, uint64_t *s)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t r = next(s), mask = di->bits >= 64 ? ~0ull : (1ull << di->bits) - 1;
    uint32_t pick = (uint32_t)(r % 16);
    int64_t small = (int64_t)((r >> 8) % 9) - 4;
    if (t == PLUMB_I1)
        return (r >> 8) & 1;
    if (!plumb_dtype_is_float(t)) {
        if (pick < 3)
            return next(s) & mask;
        if (di->cls == PLUMB_DC_UINT && small < 0)
            small = -small;
        return (uint64_t)small & mask;
    }
    static const double specials[] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 0.5, -1.5, 65504.0};
    if (pick < 2)
        return next(s) & mask;
    if (pick < 4)
        return float_bits(t, specials[(r >> 8) % (sizeof specials / sizeof specials[0])]);
    return float_bits(t, (double)small * (pick & 1 ? 1.0 : 0.25));
}

static bool nan_bits(plumb_dtype t, uint64_t b) { return plumb_dtype_is_float(t) && plumb_float_is_nan(t, b); }

/* Bitwise equality of result k, NaN matching NaN. */
static void compare_exact(uint32_t k, const plumb_tensor *want, const plumb_tensor *got)
{
    uint64_t n = plumb_tensor_numel(want);
    plumb_dtype t = want->dtype;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = plumb_load_bits(t, want->data, (size_t)i), b = plumb_load_bits(t, got->data, (size_t)i);
        if (a != b && !(nan_bits(t, a) && nan_bits(t, b)))
            fuzz_fail("result %u element %llu of an exact program: runtime 0x%llx, reference 0x%llx", k,
                      (unsigned long long)i, (unsigned long long)b, (unsigned long long)a);
    }
}

/* The op @main consists of when it is one op on its parameters, returned
 * as is; NULL otherwise. */
static const ir_op *single_op(const ir_func *f)
{
    const ir_op *op = f->body.first;
    if (!op || f->body.n_ops != 2 || op->next != f->body.last || op->code == PLUMB_OP_CALL)
        return NULL;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i]->def)
            return NULL;
    const ir_op *ret = f->body.last;
    if (ret->n_operands != op->n_results)
        return NULL;
    for (uint32_t i = 0; i < ret->n_operands; i++)
        if (ret->operands[i] != op->results[i])
            return NULL;
    return op;
}

/* PLUMB_FUZZ_VERBOSE=1: one line per input saying which oracle judged it
 * ("checked", "exact", "ran", or "skipped: why"), so the seed replay in
 * make check can assert that the oracles are reached, not only that
 * nothing crashed. */
static void verdict(const char *what)
{
    const char *v = getenv("PLUMB_FUZZ_VERBOSE");
    if (v && strcmp(v, "1") == 0)
        fprintf(stderr, "program_diff: %s\n", what);
}

/* ---- the structure-aware mutator ---------------------------------------- */

static bool verifies(const ir_module *m)
{
    ir_verify_options vo = {.struct_size = sizeof vo, .max_bytes = FUZZ_PROGRAM_BYTES};
    plumb_diag d = {.code = PLUMB_OK};
    return ir_verify(m, &vo, &d);
}

/* An elementwise op written `op %a, %b : T` whose result has its operands'
 * type: the ops one can replace by another without touching types. */
static bool swappable(plumb_opcode c)
{
    const plumb_op_info *oi = plumb_op_get(c);
    return oi->kind == PLUMB_KIND_ELEMENTWISE && oi->syntax == PLUMB_SYN_EW && oi->results == 1 &&
           (oi->arity == 1 || oi->arity == 2) && c != PLUMB_OP_CONVERT && c != PLUMB_OP_COMPARE &&
           c != PLUMB_OP_BITCAST_CONVERT && c != PLUMB_OP_IS_FINITE;
}

static bool mutate_opcode(ir_op *op, uint64_t *s)
{
    if (!swappable(op->code) || op->n_results != 1)
        return false;
    const plumb_op_info *oi = plumb_op_get(op->code);
    plumb_dtype t = op->results[0]->type.dtype;
    plumb_opcode cand[PLUMB_OP_COUNT];
    uint32_t n = 0;
    for (int c = 0; c < PLUMB_OP_COUNT; c++)
        if ((plumb_opcode)c != op->code && swappable((plumb_opcode)c) && plumb_op_get((plumb_opcode)c)->arity == oi->arity &&
            (plumb_op_get((plumb_opcode)c)->types & PLUMB_TY_BIT(t)))
            cand[n++] = (plumb_opcode)c;
    if (!n)
        return false;
    op->code = cand[next(s) % n];
    return true;
}

/* Rewires operand i of op to a value of the same type defined before op in
 * the same block (a block argument or an earlier result). */
static bool mutate_operand(ir_block *b, ir_op *op, uint64_t *s)
{
    if (!op->n_operands)
        return false;
    uint32_t i = (uint32_t)(next(s) % op->n_operands);
    const ir_type *want = &op->operands[i]->type;
    ir_value *cand[256];
    uint32_t n = 0;
    for (uint32_t a = 0; a < b->n_args && n < 256; a++)
        if (b->args[a] != op->operands[i] && ir_type_equal(&b->args[a]->type, want))
            cand[n++] = b->args[a];
    for (ir_op *p = b->first; p && p != op && n < 256; p = p->next)
        for (uint32_t r = 0; r < p->n_results && n < 256; r++)
            if (p->results[r] != op->operands[i] && ir_type_equal(&p->results[r]->type, want))
                cand[n++] = p->results[r];
    if (!n)
        return false;
    op->operands[i] = cand[next(s) % n];
    return true;
}

static bool mutate_constant(ir_op *op, uint64_t *s)
{
    plumb_tensor *v = op->a.value;
    if (op->code != PLUMB_OP_CONSTANT || !v || !v->nbytes)
        return false;
    uint64_t r = next(s);
    ((uint8_t *)v->data)[(r >> 3) % v->nbytes] ^= (uint8_t)(1u << (r & 7));
    return true;
}

static bool mutate_compare(ir_op *op, uint64_t *s)
{
    if (op->code != PLUMB_OP_COMPARE)
        return false;
    ir_cmp_dir d = (ir_cmp_dir)(next(s) % 6);
    if (d == op->a.cmp_dir)
        return false;
    op->a.cmp_dir = d;
    return true;
}

/* One mutation of @main's body that keeps the module valid; false when
 * none applied. */
static bool mutate_module(ir_module *m, uint64_t *s)
{
    ir_func *f = ir_module_find_func(m, "main");
    if (!f || !f->body.n_ops)
        return false;
    for (int attempt = 0; attempt < 8; attempt++) {
        uint32_t k = (uint32_t)(next(s) % f->body.n_ops);
        ir_op *op = f->body.first;
        while (k-- && op->next)
            op = op->next;
        plumb_opcode code = op->code;
        ir_value *ops_before[8];
        uint32_t n_save = op->n_operands < 8 ? op->n_operands : 8;
        if (n_save)   /* operands is NULL for an op without any */
            memcpy(ops_before, op->operands, n_save * sizeof *ops_before);
        ir_cmp_dir dir = op->a.cmp_dir;
        bool changed;
        switch (next(s) % 4) {
        case 0: changed = mutate_opcode(op, s); break;
        case 1: changed = op->n_operands <= 8 && mutate_operand(&f->body, op, s); break;
        case 2: changed = mutate_constant(op, s); break;
        default: changed = mutate_compare(op, s); break;
        }
        if (!changed)
            continue;
        if (verifies(m))
            return true;
        /* Undo (a flipped constant bit always verifies, so it never gets here). */
        op->code = code;
        if (n_save)
            memcpy(op->operands, ops_before, n_save * sizeof *ops_before);
        op->a.cmp_dir = dir;
    }
    return false;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t s = ((uint64_t)seed << 32) ^ XXH3_64bits(data, size);
    if (size <= FUZZ_PROGRAM_BYTES && next(&s) % 8 != 0) {
        ir_parse_options po = {.struct_size = sizeof po, .max_bytes = FUZZ_PROGRAM_BYTES};
        plumb_diag d = {.code = PLUMB_OK};
        ir_module *m = ir_parse((const char *)data, size, "input", &po, &d);
        size_t out = 0;
        if (m && verifies(m) && mutate_module(m, &s)) {
            plumb_buf b;
            plumb_buf_init(&b);
            ir_print(&b, m);
            if (!b.failed && b.len <= max_size) {
                memcpy(data, b.data, b.len);
                out = b.len;
            }
            plumb_buf_free(&b);
        }
        if (m)
            ir_module_free(m);
        if (out)
            return out;
    }
    return LLVMFuzzerMutate(data, size, max_size);
}

static bool excused(plumb_code c) { return c == PLUMB_ERR_LIMIT || c == PLUMB_ERR_NOMEM || c == PLUMB_ERR_RUNTIME; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_PROGRAM_BYTES)
        return 0;
    rewind(null_log);
    if (ftruncate(fileno(null_log), 0) != 0)
        fuzz_fail("cannot empty the check log");
    ir_parse_options po = {.struct_size = sizeof po, .max_bytes = FUZZ_PROGRAM_BYTES};
    ir_verify_options vo = {.struct_size = sizeof vo, .max_bytes = FUZZ_PROGRAM_BYTES};
    plumb_diag d = {.code = PLUMB_OK};
    char *text = plumb_strndup((const char *)data, size);   /* the checker reads a C string */
    if (!text)
        return 0;
    ir_module *m = ir_parse(text, size, "input", &po, &d);
    plumb_tensor **ins = NULL, **got = NULL;
    uint32_t n_ins = 0, n_got = 0;
    plumb_ref_result want = {0};
    bool have_want = false;
    const char *why = "skipped: does not parse or verify";
    if (!m || !ir_verify(m, &vo, &d))
        goto out;
    const ir_func *f = ir_module_find_func(m, "main");
    why = "skipped: no @main";
    if (!f)
        goto out;
    why = "skipped: over the budget or dynamic";
    budget b = {0, 0, false, true};
    n_ins = f->body.n_args;
    for (uint32_t i = 0; i < n_ins; i++) {
        if (!ir_type_is_static(&f->body.args[i]->type))
            goto out;
        b.elems += type_numel(&f->body.args[i]->type);
    }
    if (b.elems > FUZZ_MAX_ELEMS || !ir_walk(m, count_op, &b) || b.dynamic)
        goto out;

    uint64_t seed = XXH3_64bits(data, size);
    if (n_ins && !(ins = calloc(n_ins, sizeof *ins)))
        goto out;
    for (uint32_t i = 0; i < n_ins; i++) {
        const ir_type *t = &f->body.args[i]->type;
        if (!(ins[i] = plumb_tensor_new(t->dtype, t->rank, t->dims, FUZZ_MAX_BYTES, &d)))
            goto out;
        uint64_t n = plumb_tensor_numel(ins[i]);
        for (uint64_t j = 0; j < n; j++)
            plumb_store_bits(t->dtype, ins[i]->data, (size_t)j, gen_elem(t->dtype, &seed));
    }

    plumb_ref_options ro = {.struct_size = sizeof ro, .max_bytes = FUZZ_MAX_BYTES, .timeout_s = FUZZ_TIMEOUT_S,
                            .check_log = null_log, .max_mismatches = 1};
    why = "skipped: the reference refuses it";
    if (!plumb_ref_run(m, "main", ins, n_ins, &ro, &want, &d))
        goto out;   /* the reference refuses the inputs or runs out of time: nothing to compare */
    have_want = true;

    plumb_diag rd = {.code = PLUMB_OK};
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &rd);
    if (!ex) {
        why = "skipped: the runtime hit a limit";
        if (excused(rd.code))
            goto out;
        fuzz_fail("the reference runs the program but the runtime does not compile it: %s: %s",
                  plumb_code_name(rd.code), rd.msg);
    }
    n_got = plumb_executable_num_outputs(ex);
    if (n_got != want.n_outputs)
        fuzz_fail("the runtime's program has %u results, the reference's %u", n_got, want.n_outputs);
    if (n_got && !(got = calloc(n_got, sizeof *got)))
        goto out;
    uint32_t checks_failed = 0;
    if (!plumb_executable_run(ex, ins, n_ins, got, n_got, &checks_failed, &rd)) {
        memset(got, 0, n_got * sizeof *got);
        why = "skipped: the runtime hit a limit";
        if (excused(rd.code))
            goto out;
        fuzz_fail("the reference runs the program but the runtime fails: %s: %s", plumb_code_name(rd.code), rd.msg);
    }
    for (uint32_t k = 0; k < n_got; k++)
        if (got[k]->dtype != want.outputs[k]->dtype || got[k]->nbytes != want.outputs[k]->nbytes)
            fuzz_fail("result %u: the runtime returns another type or size", k);

    const ir_op *op = single_op(f);
    why = "ran";
    if (op) {
        conf_case c;
        memset(&c, 0, sizeof c);
        snprintf(c.id, sizeof c.id, "fuzz/%s", plumb_op_name(op->code));
        c.op = op->code;
        c.dtype = op->n_operands ? op->operands[0]->type.dtype : op->results[0]->type.dtype;
        c.shape_class = "fuzz";
        c.value_class = "fuzz";
        c.program = text;
        c.inputs = ins;
        c.n_inputs = n_ins;
        /* What backend_runtime.c declares: no flush to zero, NaN payloads
         * kept, half types accumulated in f32, f32 and f64 in their own. */
        conf_check_opts co;
        memset(&co, 0, sizeof co);
        co.preserves_nan_payload = true;
        co.accum[PLUMB_F16] = PLUMB_F32;
        co.accum[PLUMB_BF16] = PLUMB_F32;
        co.accum[PLUMB_F32] = PLUMB_F32;
        co.accum[PLUMB_F64] = PLUMB_F64;
        conf_result r;
        plumb_diag cd = {.code = PLUMB_OK};
        if (conf_check_case(&c, got, n_got, &co, &r, &cd)) {
            if (!r.pass)
                fuzz_fail("the conformance checker fails the runtime on %s: %s", plumb_op_name(op->code), r.reason);
            why = "checked";
        }
    } else if (b.all_exact) {
        for (uint32_t k = 0; k < n_got; k++)
            compare_exact(k, want.outputs[k], got[k]);
        why = "exact";
    }
out:
    verdict(why);
    plumb_runtime_cache_clear(rt);
    for (uint32_t k = 0; got && k < n_got; k++)
        if (got[k])
            plumb_tensor_free(got[k]);
    free(got);
    if (have_want)
        plumb_ref_result_free(&want);
    for (uint32_t i = 0; ins && i < n_ins; i++)
        if (ins[i])
            plumb_tensor_free(ins[i]);
    free(ins);
    if (m)
        ir_module_free(m);
    plumb_free(text, size + 1);
    return 0;
}
