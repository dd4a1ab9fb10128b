/* plumb-bench --ops: the speed of every elementwise op on every element type
 * it takes, runtime against reference, one thread. The workload table shows
 * what fused programs reach; this one shows where a single op still runs
 * far slower than its neighbours (a per-element path where the rest is
 * vectorized), which the workloads would hide. Every runtime result is
 * checked against the reference within the op table's bound before its
 * time is reported. docs/bench.md describes the table. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/checkcmp.h"
#include "plumb/dtype.h"
#include "plumb/nn.h"
#include "plumb/ops.h"
#include "plumb/ref.h"
#include "plumb/tensor.h"

static const plumb_dtype op_types[] = {PLUMB_F32, PLUMB_F16, PLUMB_BF16, PLUMB_F64, PLUMB_I32, PLUMB_I8};
#define N_TYPES (sizeof op_types / sizeof *op_types)

typedef struct op_cell {
    bool built;              /* the op takes this element type */
    bool ran;                /* both backends ran */
    bool valid;              /* every element within the op's bound */
    double rt_ns;            /* runtime, ns per element, best run */
    double ref_ns;           /* reference, ns per element, best run */
    uint64_t worst_ulp;      /* worst distance from the reference (floats), ULPs */
    char error[1100];         /* why it failed, with the diagnostic */
} op_cell;

/* Ops whose operands need a positive domain to measure their normal path
 * (elsewhere they return NaN, which is not the case worth timing). */
static bool positive_domain(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_POWER:
        return true;
    default:
        return false;
    }
}

/* v rounded to float type t, as its bit pattern. */
static uint64_t float_bits(plumb_dtype t, double v)
{
    if (t == PLUMB_F16)
        return plumb_f64_to_f16(v);
    if (t == PLUMB_BF16)
        return plumb_f64_to_bf16(v);
    if (t == PLUMB_F32) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

/* Deterministic operand data: floats in [-4, 4) (or [1/8, 8) for the
 * positive-domain ops), integers over the type's range with shift counts
 * kept below the width so shifts do not collapse to one value. */
static void fill_operand(plumb_tensor *x, plumb_opcode op, uint32_t salt)
{
    plumb_dtype t = x->dtype;
    size_t es = plumb_dtype_size(t), n = (size_t)plumb_tensor_numel(x);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)salt * 0xD1B54A32D192ED03ull);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = (double)(s >> 11) * 0x1p-53;   /* [0, 1) */
        uint64_t bits;
        if (plumb_dtype_is_float(t)) {
            double v = positive_domain(op) ? 0.125 * exp2(6.0 * u) : 8.0 * u - 4.0;
            bits = float_bits(t, v);
        } else {
            bits = s >> 3;
            bool shift = op == PLUMB_OP_SHIFT_LEFT || op == PLUMB_OP_SHIFT_RIGHT_ARITHMETIC ||
                         op == PLUMB_OP_SHIFT_RIGHT_LOGICAL;
            if (shift && salt == 2)
                bits %= 8 * es;
        }
        memcpy((char *)x->data + i * es, &bits, es);
    }
}

static ir_module *build_op(plumb_opcode op, plumb_dtype t, int64_t n)
{
    ir_module *m = ir_module_new("op");
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, NULL) || !plumb_nn_begin_func(&nn, "main", true)) {
        ir_module_free(m);
        return NULL;
    }
    int arity = plumb_op_get(op)->arity;
    ir_value *a = plumb_nn_param(&nn, t, 1, &n), *b = arity == 2 ? plumb_nn_param(&nn, t, 1, &n) : NULL;
    ir_value *r = arity == 2 ? plumb_nn_binary(&nn, op, a, b) : plumb_nn_unary(&nn, op, a);
    if (!r || !plumb_nn_return(&nn, &r, 1) || !plumb_nn_ok(&nn)) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

/* The worst ULP distance of got from want over the first n elements; NaN
 * against NaN counts as equal (payload rules are the conformance suite's
 * business), any other class difference as UINT64_MAX. */
static uint64_t worst_distance(const plumb_tensor *want, const plumb_tensor *got, size_t n)
{
    plumb_dtype t = want->dtype;
    size_t es = plumb_dtype_size(t);
    uint64_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = 0, b = 0;
        memcpy(&a, (const char *)want->data + i * es, es);
        memcpy(&b, (const char *)got->data + i * es, es);
        uint64_t dist;
        if (plumb_dtype_is_float(t)) {
            bool an = plumb_float_is_nan(t, a), bn = plumb_float_is_nan(t, b);
            dist = an && bn ? 0 : an != bn ? UINT64_MAX : plumb_ulp_distance(t, a, b);
        } else {
            dist = a == b ? 0 : UINT64_MAX;
        }
        if (dist > worst)
            worst = dist;
    }
    return worst;
}

static void measure(plumb_runtime *rt1, const bench_config *cfg, plumb_opcode op, plumb_dtype t, op_cell *c)
{
    int64_t n = cfg->quick ? 4096 : 65536, ns = cfg->quick ? 512 : 4096;
    int arity = plumb_op_get(op)->arity;
    ir_module *m = build_op(op, t, n), *ms = m ? build_op(op, t, ns) : NULL;
    plumb_tensor *in[2] = {0}, *ins[2] = {0}, *out = NULL;
    plumb_ref_result res = {0};
    plumb_diag d = {0};
    if (!m) {
        ir_module_free(ms);
        return;   /* the op does not take this type */
    }
    c->built = true;
    plumb_executable *ex = ms ? plumb_runtime_compile(rt1, m, "main", &d) : NULL;
    if (!ex) {
        snprintf(c->error, sizeof c->error, "compile: %s", d.msg[0] ? d.msg : "out of memory");
        goto done;
    }
    for (int k = 0; k < arity; k++) {
        if (!(in[k] = plumb_tensor_new(t, 1, &n, 0, &d)) || !(ins[k] = plumb_tensor_new(t, 1, &ns, 0, &d))) {
            snprintf(c->error, sizeof c->error, "inputs: %s", d.msg);
            goto done;
        }
        fill_operand(in[k], op, (uint32_t)k + 1);
        memcpy(ins[k]->data, in[k]->data, (size_t)ns * plumb_dtype_size(t));
    }
    const ir_func *f = ir_module_find_func(m, "main");
    if (!f || f->n_results != 1 || !(out = plumb_tensor_new(f->result_types[0].dtype, 1, &n, 0, &d))) {
        snprintf(c->error, sizeof c->error, "result: %s", d.msg);
        goto done;
    }
    double best = INFINITY;
    int reps = cfg->reps > 5 ? cfg->reps : 5;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        if (!plumb_executable_run_into(ex, in, (uint32_t)arity, &out, 1, NULL, &d)) {
            snprintf(c->error, sizeof c->error, "run: %s", d.msg);
            goto done;
        }
        double dt = bench_now() - t0;
        best = dt < best ? dt : best;
    }
    c->rt_ns = best / (double)n * 1e9;
    if (cfg->perturb) {
        /* the second-highest bit of element 0: far outside any bound */
        size_t es = plumb_dtype_size(out->dtype);
        uint64_t v = 0;
        memcpy(&v, out->data, es);
        v ^= 1ull << (8 * es - 2);
        memcpy(out->data, &v, es);
    }
    double rbest = INFINITY;
    int rreps = cfg->ref_reps > 1 ? cfg->ref_reps : 1;
    for (int r = 0; r < rreps; r++) {
        plumb_ref_result_free(&res);
        memset(&res, 0, sizeof res);
        double t0 = bench_now();
        if (!plumb_ref_run(ms, "main", ins, (uint32_t)arity, NULL, &res, &d)) {
            snprintf(c->error, sizeof c->error, "reference: %s", d.msg);
            goto done;
        }
        double dt = bench_now() - t0;
        rbest = dt < rbest ? dt : rbest;
    }
    c->ref_ns = rbest / (double)ns * 1e9;
    c->ran = true;
    c->worst_ulp = worst_distance(res.outputs[0], out, (size_t)ns);
    uint32_t bound = plumb_dtype_is_float(res.outputs[0]->dtype) ? plumb_op_ulp_bound(op, t) : 0;
    c->valid = c->worst_ulp <= bound;
    if (!c->valid)
    {
        if (c->worst_ulp == UINT64_MAX)
            snprintf(c->error, sizeof c->error, "MISMATCH: a value of another class (NaN, or a different integer)");
        else
            snprintf(c->error, sizeof c->error, "MISMATCH: %llu ULP from the reference, bound %u",
                     (unsigned long long)c->worst_ulp, bound);
    }
done:
    plumb_ref_result_free(&res);
    for (int k = 0; k < 2; k++) {
        plumb_tensor_free(in[k]);
        plumb_tensor_free(ins[k]);
    }
    plumb_tensor_free(out);
    ir_module_free(m);
    ir_module_free(ms);
}

/* The ops of the table: elementwise, one or two operands of one type (the
 * ones with attributes or mixed operand types, compare, select, clamp,
 * convert, reduce_precision, are left to the workloads and tests). */
static bool in_table(plumb_opcode op)
{
    const plumb_op_info *info = plumb_op_get(op);
    if (info->kind != PLUMB_KIND_ELEMENTWISE || info->arity < 1 || info->arity > 2)
        return false;
    return op != PLUMB_OP_CONVERT && op != PLUMB_OP_COMPARE && op != PLUMB_OP_REDUCE_PRECISION &&
           op != PLUMB_OP_SELECT && op != PLUMB_OP_CLAMP;
}

bool bench_ops_run(const bench_config *cfg, plumb_runtime *rt1, const char *json_path)
{
    op_cell *cells = calloc((size_t)PLUMB_OP_COUNT * N_TYPES, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "plumb-bench: out of memory\n");
        return false;
    }
    bool all_ok = true;
    unsigned done = 0, total = 0;
    for (int op = 0; op < PLUMB_OP_COUNT; op++)
        total += in_table((plumb_opcode)op);
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        if (!in_table((plumb_opcode)op))
            continue;
        fprintf(stderr, "\rplumb-bench: ops %u/%u %-32s", ++done, total, plumb_op_name((plumb_opcode)op));
        for (unsigned ti = 0; ti < N_TYPES; ti++)
            measure(rt1, cfg, (plumb_opcode)op, op_types[ti], &cells[(size_t)op * N_TYPES + ti]);
    }
    fprintf(stderr, "\n");

    printf("elementwise ops, one thread, %s elements: runtime ns/element (speedup over the reference)\n",
           cfg->quick ? "4096" : "65536");
    printf("%-22s", "op");
    for (unsigned ti = 0; ti < N_TYPES; ti++)
        printf(" %16s", plumb_dtype_name(op_types[ti]));
    printf("\n");
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        if (!in_table((plumb_opcode)op))
            continue;
        printf("%-22s", plumb_op_short_name((plumb_opcode)op));
        for (unsigned ti = 0; ti < N_TYPES; ti++) {
            const op_cell *c = &cells[(size_t)op * N_TYPES + ti];
            char s[32];
            if (!c->built)
                snprintf(s, sizeof s, "-");
            else if (!c->ran || !c->valid)
                snprintf(s, sizeof s, "FAILED");
            else
                snprintf(s, sizeof s, "%.2f (%.0fx)", c->rt_ns, c->ref_ns / c->rt_ns);
            printf(" %16s", s);
            all_ok &= !c->built || (c->ran && c->valid);
        }
        printf("\n");
    }
    for (int op = 0; op < PLUMB_OP_COUNT; op++)
        for (unsigned ti = 0; ti < N_TYPES; ti++) {
            const op_cell *c = &cells[(size_t)op * N_TYPES + ti];
            if (c->built && c->error[0])
                printf("%s %s: %s\n", plumb_op_short_name((plumb_opcode)op), plumb_dtype_name(op_types[ti]),
                       c->error);
        }
    printf("- : the op does not take the type; every runtime result is checked against the reference within\n"
           "the op table's bound (exact ops bit for bit) on the first %s elements before its time counts\n",
           cfg->quick ? "512" : "4096");

    if (json_path) {
        /* Built in memory, then written atomically, never through a link. */
        char *mem = NULL;
        size_t mem_len = 0;
        FILE *f = open_memstream(&mem, &mem_len);
        if (!f) {
            fprintf(stderr, "plumb-bench: out of memory writing %s\n", json_path);
            all_ok = false;
        } else {
            fprintf(f, "{\n  \"ops\": [\n");
            bool first = true;
            for (int op = 0; op < PLUMB_OP_COUNT; op++)
                for (unsigned ti = 0; ti < N_TYPES; ti++) {
                    const op_cell *c = &cells[(size_t)op * N_TYPES + ti];
                    if (!c->built)
                        continue;
                    fprintf(f, "%s    {\"op\": \"%s\", \"type\": \"%s\", \"valid\": %s", first ? "" : ",\n",
                            plumb_op_name((plumb_opcode)op), plumb_dtype_name(op_types[ti]),
                            c->ran && c->valid ? "true" : "false");
                    if (c->ran)
                        fprintf(f, ", \"runtime_ns_per_element\": %.6g, \"reference_ns_per_element\": %.6g", c->rt_ns,
                                c->ref_ns);
                    fprintf(f, "}");
                    first = false;
                }
            fprintf(f, "\n  ]\n}\n");
            plumb_diag d = {.code = PLUMB_OK};
            if (ferror(f) | (fclose(f) != 0)) {
                fprintf(stderr, "plumb-bench: out of memory writing %s\n", json_path);
                all_ok = false;
            } else {
                /* open_memstream sets mem only at fflush or fclose: taken before
                 * fclose it was stale (the write then failed with EFAULT). */
                const void *parts[1] = {mem};
                if (!plumb_write_file_atomic(json_path, parts, &mem_len, 1, &d)) {
                    fprintf(stderr, "plumb-bench: %s\n", d.msg);
                    all_ok = false;
                }
            }
            free(mem);
        }
    }
    free(cells);
    if (!all_ok)
        printf("some ops failed or did not validate\n");
    return all_ok;
}
