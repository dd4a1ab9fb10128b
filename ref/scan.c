/* chlo.scan on the reference (op set v2, docs/spec/control.md "scan"). */
#include <string.h>

#include "plumb/scan.h"
#include "ref_internal.h"

/* scan: operands are N inputs then M inits (M = attrs.n_inits), results K
 * outputs then M carries. With L the inputs' size along `dimension`, the
 * carries start as the inits and, for t = 0, 1, ..., L-1 (L-1 down to 0
 * when is_reverse), the body runs on (input_0[t], ..., input_{N-1}[t],
 * carry_0, ..., carry_{M-1}), where input_i[t] is the slice of input i at
 * position t of `dimension` with that dimension removed; its first K
 * values are written to position t of the K outputs, its last M replace
 * the carries. The results' carries are the carries after the last step.
 * (ChloOps.td's ScanOp as stablehlo/tests/interpret/chlo/scan.mlir
 * exercises it: inclusive prefix sums, is_reverse giving suffix sums.)
 * The order is sequential and is the semantics, also for float bodies:
 * is_associative is only a hint that another order would be acceptable to
 * its writer, and the reference does not take it.
 * Each body evaluation charges the run's work counter (ref_eval_region),
 * and the loop is named by timeouts (ref_loop_set) as while's is.
 * Types: any (the body's ops check theirs). Edge cases: L = 0 (the body
 * never runs: outputs are empty, carries = inits); M = 0 (a map along the
 * dimension); N = 0 (L from the outputs' type: the body runs L times on
 * the carries alone); rank-0 slices; element bits (NaN payloads, signed
 * zeros) reach the body and the results unchanged. */

/* t's type with dimension d removed (static dims: a run-time tensor's). */
static ir_type slice_type(const plumb_tensor *t, uint32_t d)
{
    ir_type r = {.dtype = t->dtype};
    r.rank = ir_scan_slice_dims(t, d, r.dims);
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        r.bounds[i] = PLUMB_NO_BOUND;
    return r;
}

/* The reference's hooks for the shared step loop (ir_scan_run). */
typedef struct ref_scan {
    ref_ctx *c;
    const ir_op *prev_loop;   /* the enclosing loop, restored at the end */
    uint64_t prev_iter;
} ref_scan;

static plumb_tensor *ref_scan_slice_new(void *ctx, const ir_op *op, const plumb_tensor *t, uint32_t d)
{
    ir_type st = slice_type(t, d);
    return ref_tensor_new(((ref_scan *)ctx)->c, op, &st);
}

static bool ref_scan_eval(void *ctx, const ir_op *op, plumb_tensor **args, plumb_tensor **res)
{
    return ref_eval_region(((ref_scan *)ctx)->c, &op->regions[0], args, res);
}

static void ref_scan_at_step(void *ctx, const ir_op *op, uint64_t step, bool begin, bool done)
{
    ref_scan *r = ctx;
    if (begin)
        ref_loop_set(r->c, op, 0, &r->prev_loop, &r->prev_iter);
    else if (done)
        ref_loop_set(r->c, r->prev_loop, r->prev_iter, NULL, NULL);
    else
        ref_loop_set(r->c, op, step, NULL, NULL);
}

static void ref_scan_nomem(void *ctx, const ir_op *op, uint32_t n)
{
    ref_fail(((ref_scan *)ctx)->c, op, PLUMB_ERR_NOMEM, "out of memory for %u body values", n);
}

bool ref_op_SCAN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    ir_scan s;
    char why[160];
    if (!ir_scan_init(&s, op, in, out, why, sizeof why))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s", why);
    ref_scan r = {.c = c};
    ir_scan_hooks h = {&r, ref_scan_slice_new, ref_scan_eval, ref_scan_at_step, ref_scan_nomem};
    return ir_scan_run(&s, op, in, out, &h);
}
