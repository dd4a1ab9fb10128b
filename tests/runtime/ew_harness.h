/* Shared scaffolding of the element-wise runtime tests (tests/runtime/
 * test_ew_*.c, test_elementwise.c): the random generator, the pool and
 * best-ISA fixture, the one-op job of the f32/f64 tests (module, inputs and
 * reference result), and the one-op program builder and mismatch reporter of
 * the f16/bf16 tests. Everything is static inline so each test binary keeps
 * its own copy and an unused piece costs nothing. */
#ifndef PLUMB_TESTS_RUNTIME_EW_HARNESS_H
#define PLUMB_TESTS_RUNTIME_EW_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../runtime/rt_pipeline.h"

/* Splitmix64 step on *state. Each test file owns its state and seed, so
 * its data stay the same whatever the other files draw. */
static inline uint64_t ew_rnd(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The group fixture: a two-worker pool and the best ISA this CPU has. */
typedef struct harness {
    rt_pool *pool;
    plumb_isa best;
} harness;

static inline int ew_setup(void **state)
{
    static harness h;
    plumb_diag d = {.code = PLUMB_OK};
    h.pool = rt_pool_new(2, &d);
    if (!h.pool)
        return -1;
    h.best = rt_cpu_best_isa();
    *state = &h;
    return 0;
}

static inline int ew_teardown(void **state)
{
    harness *h = *state;
    rt_pool_free(h->pool);
    return 0;
}

/* One op over n elements: the module, its inputs and the reference's result.
 * Operand types: t for every operand but select's predicate (i1); result
 * i1 for compare and is_finite. */
typedef struct ew_job {
    plumb_opcode code;
    plumb_dtype t, rt, in_t[3];
    uint32_t arity;
    ir_cmp_dir dir;
    ir_cmp_type cmp;
    uint64_t n;
    ir_module *m;
    ir_op *op;
    plumb_tensor *in[3];
    plumb_ref_result res;
} ew_job;

/* vals[k][i]: bit pattern of element i of operand k */
static inline void ew_job_build(ew_job *j, plumb_opcode code, plumb_dtype t, ir_cmp_dir dir, ir_cmp_type cmp,
                                const uint64_t *const *vals, uint64_t n)
{
    memset(j, 0, sizeof *j);
    j->code = code;
    j->t = t;
    j->rt = code == PLUMB_OP_COMPARE || code == PLUMB_OP_IS_FINITE ? PLUMB_I1 : t;
    j->arity = (uint32_t)plumb_op_get(code)->arity;
    j->dir = dir;
    j->cmp = cmp;
    j->n = n;
    for (uint32_t k = 0; k < j->arity; k++)
        j->in_t[k] = code == PLUMB_OP_SELECT && k == 0 ? PLUMB_I1 : t;
    j->m = ir_module_new("t");
    assert_non_null(j->m);
    ir_func *f = ir_func_new(j->m, "main", true);
    int64_t dims[1] = {(int64_t)n};
    ir_type rty = ir_type_make(j->rt, 1, dims);
    ir_value *args[3];
    for (uint32_t k = 0; k < j->arity; k++) {
        ir_type ty = ir_type_make(j->in_t[k], 1, dims);
        args[k] = ir_block_add_arg(j->m, &f->body, &ty);
    }
    j->op = ir_op_new(j->m, code, args, j->arity, &rty, 1);
    j->op->a.cmp_dir = dir;
    j->op->a.cmp_type = cmp;
    ir_block_append(&f->body, j->op);
    ir_block_append(&f->body, ir_op_new(j->m, PLUMB_OP_FUNC_RETURN, j->op->results, 1, NULL, 0));
    assert_true(ir_func_set_results(j->m, f, &rty, 1));
    plumb_diag d = {.code = PLUMB_OK};
    if (!ir_verify(j->m, NULL, &d))
        plumb_diag_print(&d, stderr);
    assert_true(ir_verify(j->m, NULL, &d));
    for (uint32_t k = 0; k < j->arity; k++) {
        j->in[k] = plumb_tensor_new(j->in_t[k], 1, dims, 0, &d);
        assert_non_null(j->in[k]);
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(j->in_t[k], j->in[k]->data, i, vals[k][i]);
    }
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(j->m, NULL, j->in, j->arity, &ro, &j->res, &d));
}

static inline void ew_job_free(ew_job *j)
{
    plumb_ref_result_free(&j->res);
    for (uint32_t k = 0; k < j->arity; k++)
        plumb_tensor_free(j->in[k]);
    ir_module_free(j->m);
}

/* Special patterns of a half type: zeros, ones, halves, infinities, NaNs
 * (quiet, signaling, with payload), extremes, subnormals, values around
 * the 0.5/1.5/2.5 rounding ties and 2^p. Both signs. v needs room for 46. */
static inline size_t ew_half_specials(plumb_dtype t, uint16_t *v)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint16_t M = (uint16_t)d->mant_bits, em = (uint16_t)(((1u << d->exp_bits) - 1) << M);
    uint16_t bias = (uint16_t)((1u << (d->exp_bits - 1)) - 1), q = (uint16_t)(1u << (M - 1));
    uint16_t one = (uint16_t)(bias << M), half = (uint16_t)((bias - 1) << M), two = (uint16_t)((bias + 1) << M);
    uint16_t base[] = {0, one, half, two, em, (uint16_t)(em | q), (uint16_t)(em | 1), (uint16_t)(em | q | 3),
                       (uint16_t)(em - 1), 1, 2, (uint16_t)((1u << M) - 1), (uint16_t)(1u << M),
                       (uint16_t)(one + 1), (uint16_t)(one - 1), (uint16_t)(one | q), (uint16_t)(two | (q >> 1)),
                       (uint16_t)(half + 1), (uint16_t)(half - 1), (uint16_t)((bias + M) << M),
                       (uint16_t)(((bias + M) << M) - 1), (uint16_t)(((bias + M - 1) << M) | q), 0x1234};
    size_t n = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        v[n++] = base[i];
        v[n++] = (uint16_t)(base[i] | 0x8000);
    }
    return n;
}

/* Operand pairs for a two-operand op on a half type: every one of the 65536
 * patterns against each special of ew_half_specials and each of the
 * n_extra values extra, a[i] the pattern and b[i] the other value. *a and
 * *b are malloc'd (the caller frees); returns their length. */
static inline size_t ew_half_pairs(plumb_dtype t, const uint16_t *extra, size_t n_extra, uint16_t **a, uint16_t **b)
{
    uint16_t sp[64];
    size_t ns = ew_half_specials(t, sp);
    for (size_t k = 0; k < n_extra && ns < 64; k++)
        sp[ns++] = extra[k];
    size_t n = 65536 * ns;
    *a = malloc(n * 2);
    *b = malloc(n * 2);
    assert_non_null(*a);
    assert_non_null(*b);
    for (size_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < 65536; i++) {
            (*a)[s * 65536 + i] = (uint16_t)i;
            (*b)[s * 65536 + i] = sp[s];
        }
    return n;
}

/* A one-op program: operands of type t, n elements each. The caller frees
 * it with ir_module_free(p->m). */
typedef struct ew_prog {
    ir_module *m;
    ir_op *op;
    plumb_dtype rt;
    uint32_t arity;
} ew_prog;

static inline bool ew_is_i1_result(plumb_opcode c) { return c == PLUMB_OP_COMPARE || c == PLUMB_OP_IS_FINITE; }

static inline void ew_prog_make(ew_prog *p, plumb_opcode code, plumb_dtype t, ir_cmp_dir dir, ir_cmp_type ct,
                                size_t n)
{
    p->arity = (uint32_t)plumb_op_get(code)->arity;
    p->rt = ew_is_i1_result(code) ? PLUMB_I1 : t;
    p->m = ir_module_new("t");
    assert_non_null(p->m);
    ir_func *f = ir_func_new(p->m, "main", true);
    ir_value *args[3];
    int64_t dims[1] = {(int64_t)n};
    for (uint32_t k = 0; k < p->arity; k++) {
        ir_type ty = ir_type_make(t, 1, dims);
        args[k] = ir_block_add_arg(p->m, &f->body, &ty);
    }
    ir_type rty = ir_type_make(p->rt, 1, dims);
    p->op = ir_op_new(p->m, code, args, p->arity, &rty, 1);
    p->op->a.cmp_dir = dir;
    p->op->a.cmp_type = ct;
    ir_block_append(&f->body, p->op);
    ir_op *ret = ir_op_new(p->m, PLUMB_OP_FUNC_RETURN, p->op->results, 1, NULL, 0);
    ir_block_append(&f->body, ret);
    assert_true(ir_func_set_results(p->m, f, &rty, 1));
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(ir_verify(p->m, NULL, &d));
}

/* One mismatching element of a half-type ew_prog: in[k][i] is operand k's
 * pattern, g and w the bits got and wanted, what the check that failed. */
static inline void ew_prog_report(const ew_prog *p, plumb_dtype t, plumb_isa isa, size_t i, uint16_t *const *in,
                                  uint64_t g, uint64_t w, const char *what)
{
    print_message("%s %s (dir %d type %d) isa %s element %zu: operands 0x%04x 0x%04x 0x%04x got 0x%llx want "
                  "0x%llx (%s)\n",
                  plumb_op_name(p->op->code), plumb_dtype_name(t), (int)p->op->a.cmp_dir, (int)p->op->a.cmp_type,
                  rt_isa_name(isa), i, in[0][i], p->arity > 1 ? in[1][i] : 0, p->arity > 2 ? in[2][i] : 0,
                  (unsigned long long)g, (unsigned long long)w, what);
}

#endif
