/* stablehlo.map on the compiled runtime (op set v2, docs/spec/control.md),
 * tested against the reference (tests/runtime/test_map.c).
 *
 * The computation region is part of the compiled program (compiled with it
 * once, never per element or per run). Two ways to run it:
 *
 * - a body whose ops are all elementwise ops the element engine handles
 *   (rt_ew_supported), reading only the block's arguments, earlier results
 *   of the body and scalar constants of the body, runs op by op over tiles
 *   of RT_TILE elements through rt_ew_tile: the same kernels, and so the
 *   same bits, as those ops outside a map; tiles are split over the thread
 *   pool;
 * - any other body (reductions, control flow, values captured from the
 *   enclosing function, ...) runs once per element through rt_eval_region,
 *   as the reference does. */
#include <string.h>

#include "rt_internal.h"

/* Where a body op's operand comes from in the tiled path. */
enum { SRC_ARG, SRC_OP, SRC_CONST };
typedef struct map_src {
    uint8_t kind;
    uint32_t index;          /* argument index, or body op index */
} map_src;

#define MAP_MAX_OPS 64       /* longer bodies run per element */

typedef struct map_plan {
    const ir_op *op;
    rt_exec *x;
    uint32_t n_ops;                      /* body ops before the return */
    const ir_op *ops[MAP_MAX_OPS];
    map_src src[MAP_MAX_OPS][3];
    map_src ret;                         /* what the return yields */
    size_t off[MAP_MAX_OPS];             /* each op's tile in a chunk's scratch */
    size_t chunk_bytes;
    plumb_tensor *const *in;
    plumb_tensor *out;
    void **scratch;                      /* per chunk */
    bool failed;
} map_plan;

static size_t esize(plumb_dtype t)
{
    return plumb_dtype_size(t);
}

/* True when the body can run tiled; fills p's op list and sources. */
static bool map_plan_build(map_plan *p, const ir_block *b)
{
    p->n_ops = 0;
    p->chunk_bytes = 0;
    const ir_op *o = b->first;
    for (; o && o->code != PLUMB_OP_RETURN; o = o->next) {
        if (p->n_ops == MAP_MAX_OPS || o->n_regions || o->n_results != 1 || o->results[0]->type.rank != 0)
            return false;
        uint32_t k = p->n_ops;
        if (o->code == PLUMB_OP_CONSTANT) {
            if (!o->a.value || o->a.value->nbytes != esize(o->results[0]->type.dtype))
                return false;
        } else if (!rt_ew_supported(o)) {
            return false;
        }
        for (uint32_t j = 0; j < o->n_operands; j++) {
            const ir_value *v = o->operands[j];
            if (!v->def && v->owner == b) {
                p->src[k][j] = (map_src){SRC_ARG, v->index};
                continue;
            }
            uint32_t q = 0;
            while (q < k && p->ops[q] != v->def)
                q++;
            if (q == k)
                return false;   /* captured from outside the body */
            p->src[k][j] = (map_src){p->ops[q]->code == PLUMB_OP_CONSTANT ? SRC_CONST : SRC_OP, q};
        }
        p->ops[k] = o;
        p->off[k] = p->chunk_bytes;
        p->chunk_bytes += (size_t)RT_TILE * esize(o->results[0]->type.dtype);
        p->n_ops++;
    }
    if (!o || o->n_operands != 1 || o->next)
        return false;
    const ir_value *v = o->operands[0];
    if (!v->def && v->owner == b) {
        p->ret = (map_src){SRC_ARG, v->index};
        return true;
    }
    for (uint32_t q = 0; q < p->n_ops; q++)
        if (p->ops[q] == v->def) {
            p->ret = (map_src){p->ops[q]->code == PLUMB_OP_CONSTANT ? SRC_CONST : SRC_OP, q};
            return true;
        }
    return false;
}

/* A constant's tile: RT_TILE copies of its one element (filled once per
 * chunk, before the first tile). */
static void fill_const(const map_plan *p, char *buf, uint32_t q)
{
    size_t sz = esize(p->ops[q]->results[0]->type.dtype);
    for (size_t i = 0; i < RT_TILE; i++)
        memcpy(buf + i * sz, p->ops[q]->a.value->data, sz);
}

static const void *src_ptr(const map_plan *p, char *buf, map_src s, uint64_t at)
{
    if (s.kind == SRC_ARG)
        return (const char *)p->in[s.index]->data + at * esize(p->in[s.index]->dtype);
    return buf + p->off[s.index];
}

static void map_tiles(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    map_plan *p = ctx;
    char *buf = p->scratch[chunk];
    for (uint32_t q = 0; q < p->n_ops; q++)
        if (p->ops[q]->code == PLUMB_OP_CONSTANT)
            fill_const(p, buf + p->off[q], q);
    size_t rsz = esize(p->out->dtype);
    for (uint64_t at = begin; at < end; at += RT_TILE) {
        size_t n = end - at < RT_TILE ? (size_t)(end - at) : RT_TILE;
        for (uint32_t q = 0; q < p->n_ops; q++) {
            const ir_op *o = p->ops[q];
            if (o->code == PLUMB_OP_CONSTANT)
                continue;
            const void *ins[3] = {NULL, NULL, NULL};
            for (uint32_t j = 0; j < o->n_operands; j++)
                ins[j] = src_ptr(p, buf, p->src[q][j], at);
            if (!rt_ew_tile(p->x, o, ins, buf + p->off[q], n))
                p->failed = true;   /* rt_ew_supported said yes: not reached */
        }
        memcpy((char *)p->out->data + at * rsz, src_ptr(p, buf, p->ret, at), n * rsz);
    }
}

/* Any body: one rt_eval_region per element, row-major. */
static bool map_per_element(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *out, uint64_t numel)
{
    uint32_t n = op->n_operands;
    bool ok = false;
    plumb_tensor **args = NULL, *res = NULL;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!(args = plumb_calloc(n, sizeof *args)))
        return rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u computation arguments", n);
    for (uint32_t k = 0; k < n; k++)
        if (!(args[k] = plumb_tensor_new(in[k]->dtype, 0, NULL, 0, &d))) {
            rt_fail(x, op, d.code ? d.code : PLUMB_ERR_NOMEM, "%s", d.msg);
            goto out_free;
        }
    if (!(res = plumb_tensor_new(out->dtype, 0, NULL, 0, &d))) {
        rt_fail(x, op, d.code ? d.code : PLUMB_ERR_NOMEM, "%s", d.msg);
        goto out_free;
    }
    size_t rsz = esize(out->dtype);
    for (uint64_t i = 0; i < numel; i++) {
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = esize(in[k]->dtype);
            memcpy(args[k]->data, (const char *)in[k]->data + i * sz, sz);
        }
        if (!rt_eval_region(x, &op->regions[0], args, &res))
            goto out_free;
        memcpy((char *)out->data + i * rsz, res->data, rsz);
    }
    ok = true;
out_free:
    plumb_tensor_free(res);
    for (uint32_t k = 0; args && k < n; k++)
        plumb_tensor_free(args[k]);
    plumb_free(args, n * sizeof *args);
    return ok;
}

bool rt_op_MAP(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (op->n_regions != 1 || op->n_results != 1 || op->n_operands == 0 ||
        op->regions[0].n_args != op->n_operands)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs one computation region of %u arguments and one result",
                       (unsigned)op->n_operands);
    uint64_t numel = plumb_tensor_numel(out[0]);
    for (uint32_t k = 0; k < op->n_operands; k++)
        if (plumb_tensor_numel(in[k]) != numel)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "input %u has %llu elements, the result %llu (StableHLO C1)", k,
                           (unsigned long long)plumb_tensor_numel(in[k]), (unsigned long long)numel);
    if (numel == 0)
        return true;
    map_plan *p = rt_scratch(x, op, sizeof *p);
    if (!p)
        return false;
    memset(p, 0, sizeof *p);
    if (!map_plan_build(p, &op->regions[0]))
        return map_per_element(x, op, in, out[0], numel);
    p->op = op;
    p->x = x;
    p->in = in;
    p->out = out[0];
    uint64_t grain = 4 * (uint64_t)RT_TILE;
    uint32_t chunks = rt_parallel_chunks(x, numel, grain);
    if (!(p->scratch = rt_scratch(x, op, (size_t)chunks * sizeof *p->scratch)))
        return false;
    for (uint32_t c = 0; c < chunks; c++)
        if (!(p->scratch[c] = rt_scratch(x, op, p->chunk_bytes ? p->chunk_bytes : 1)))
            return false;
    rt_parallel_for(x, numel, grain, map_tiles, p);
    if (p->failed)
        return rt_fail(x, op, PLUMB_ERR_RUNTIME, "an elementwise op of the computation was refused at run time");
    return true;
}
