/* chlo.scan on the compiled runtime (op set v2, docs/spec/control.md
 * "scan"), tested against the reference (tests/runtime/test_scan.c).
 *
 * The body is a region of the compiled program, compiled with it once and
 * run through rt_eval_region once per position of the scan dimension, as
 * while's body is: the same kernels, and so the same bits, as the body's
 * ops outside a scan. The loop is sequential (each step needs the previous
 * step's carries); the body's own kernels use the thread pool. The step
 * loop (gather each input's slice, run the body, scatter the outputs'
 * slices, move the new carries) is ir_scan_run, shared with the reference;
 * this file gives it the runtime's tensors, body runner and loop marker.
 * Edge cases as the reference's (ref/scan.c): an
 * empty scan dimension runs the body never (outputs empty, carries =
 * inits); no inits; no inputs (the length from the outputs' type). */
#include <string.h>

#include "plumb/scan.h"
#include "rt_internal.h"
#include "rt_pipeline.h"

/* The runtime's hooks for the shared step loop (ir_scan_run). */
typedef struct rt_scan {
    rt_exec *x;
    const ir_op *prev_loop;   /* the enclosing loop, restored at the end */
    uint64_t prev_iter;
} rt_scan;

/* A tensor of t's type with dimension d removed (d >= rank: none). */
static plumb_tensor *rt_scan_slice_new(void *ctx, const ir_op *op, const plumb_tensor *t, uint32_t d)
{
    int64_t dims[PLUMB_MAX_RANK];
    uint32_t r = ir_scan_slice_dims(t, d, dims);
    plumb_diag dg;
    memset(&dg, 0, sizeof dg);
    plumb_tensor *s = plumb_tensor_new(t->dtype, r, dims, 0, &dg);
    if (!s)
        rt_fail(((rt_scan *)ctx)->x, op, dg.code ? dg.code : PLUMB_ERR_NOMEM, "%s", dg.msg);
    return s;
}

static bool rt_scan_eval(void *ctx, const ir_op *op, plumb_tensor **args, plumb_tensor **res)
{
    return rt_eval_region(((rt_scan *)ctx)->x, &op->regions[0], args, res);
}

static void rt_scan_at_step(void *ctx, const ir_op *op, uint64_t step, bool begin, bool done)
{
    rt_scan *r = ctx;
    if (begin) {
        r->prev_loop = r->x->loop;
        r->prev_iter = r->x->loop_iter;
        r->x->loop = op;
    } else if (done) {
        r->x->loop = r->prev_loop;
        r->x->loop_iter = r->prev_iter;
    } else {
        r->x->loop_iter = step;
    }
}

static void rt_scan_nomem(void *ctx, const ir_op *op, uint32_t n)
{
    rt_fail(((rt_scan *)ctx)->x, op, PLUMB_ERR_NOMEM, "out of memory for %u body values", n);
}

bool rt_op_SCAN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    ir_scan s;
    char why[160];
    if (!ir_scan_init(&s, op, in, out, why, sizeof why))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", why);
    rt_scan r = {.x = x};
    ir_scan_hooks h = {&r, rt_scan_slice_new, rt_scan_eval, rt_scan_at_step, rt_scan_nomem};
    return ir_scan_run(&s, op, in, out, &h);
}
