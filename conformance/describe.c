/* Failure detail: where a mismatching element lies (its multi-dimensional
 * index) and, for elementwise ops, the input values that produced it, so a
 * failure line can be read and replayed without rerunning anything. The
 * checker (check.c) names the flat index; this file turns it into what a
 * person looks up. */
#include <string.h>

#include "certify.h"

void conf_describe_value(plumb_dtype t, const void *data, uint64_t i, char *buf, size_t cap)
{
    uint64_t bits = plumb_load_bits(t, data, (size_t)i);
    if (plumb_dtype_is_float(t)) {
        snprintf(buf, cap, "0x%0*llx (%.9g)", (int)(plumb_dtype_get(t)->bits / 4), (unsigned long long)bits,
                 plumb_load_f64(t, data, (size_t)i));
    } else if (plumb_dtype_is_signed(t)) {
        snprintf(buf, cap, "%lld", (long long)plumb_load_i64(t, data, (size_t)i));
    } else {
        snprintf(buf, cap, "%llu", (unsigned long long)bits);
    }
}

void conf_describe_index(const plumb_tensor *t, uint64_t i, char *buf, size_t cap)
{
    uint64_t idx[PLUMB_MAX_RANK];
    uint64_t rest = i;
    /* Row-major: the last dimension varies fastest. */
    for (uint32_t k = t->rank; k-- > 0;) {
        uint64_t dk = t->dims[k] > 0 ? (uint64_t)t->dims[k] : 1;
        idx[k] = rest % dk;
        rest /= dk;
    }
    size_t n = 0;
    if (cap == 0)
        return;
    buf[0] = 0;
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (uint32_t k = 0; k < t->rank && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%llu", k ? "," : "", (unsigned long long)idx[k]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

static bool same_shape(const plumb_tensor *a, const plumb_tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (uint32_t k = 0; k < a->rank; k++)
        if (a->dims[k] != b->dims[k])
            return false;
    return true;
}

bool conf_describe_inputs(plumb_tensor *const *inputs, uint32_t n_inputs, const char *const *names,
                          const plumb_tensor *out, uint64_t i, char *buf, size_t cap)
{
    if (cap == 0)
        return false;
    buf[0] = 0;
    for (uint32_t k = 0; k < n_inputs; k++) {
        const plumb_tensor *x = inputs[k];
        if (!x || (!same_shape(x, out) && plumb_tensor_numel(x) != 1))
            return false;
    }
    size_t n = 0;
    for (uint32_t k = 0; k < n_inputs && n < cap; k++) {
        const plumb_tensor *x = inputs[k];
        char v[64];
        conf_describe_value(x->dtype, x->data, plumb_tensor_numel(x) == 1 ? 0 : i, v, sizeof v);
        char nm[32];
        if (names && names[k])
            snprintf(nm, sizeof nm, "%s", names[k]);
        else
            snprintf(nm, sizeof nm, "%%arg%u", k);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s", k ? ", " : "", nm, v);
    }
    return true;
}

/* The flat element of parameter p (shaped pd) that element idx of a
 * broadcast_in_dim result reads: operand dim k is result dim bd[k], and a
 * dimension of size 1 is read at 0. */
static uint64_t broadcast_source(const plumb_tensor *p, const ir_ints *bd, const uint64_t *idx)
{
    uint64_t flat = 0;
    for (uint32_t k = 0; k < p->rank; k++) {
        uint64_t ik = p->dims[k] == 1 ? 0 : idx[bd->v[k]];
        flat = flat * (uint64_t)p->dims[k] + ik;
    }
    return flat;
}

bool conf_describe_op_inputs(const ir_func *f, const ir_value *v, plumb_tensor *const *ins,
                             const plumb_tensor *out, uint64_t i, char *buf, size_t cap)
{
    if (cap == 0)
        return false;
    buf[0] = 0;
    const ir_op *def = v ? v->def : NULL;
    if (!def || plumb_op_get(def->code)->kind != PLUMB_KIND_ELEMENTWISE)
        return false;
    /* The result's multi-dimensional index, for broadcast operands. */
    uint64_t idx[PLUMB_MAX_RANK], rest = i;
    for (uint32_t k = out->rank; k-- > 0;) {
        uint64_t dk = out->dims[k] > 0 ? (uint64_t)out->dims[k] : 1;
        idx[k] = rest % dk;
        rest /= dk;
    }
    size_t n = 0;
    for (uint32_t o = 0; o < def->n_operands; o++) {
        const ir_value *x = def->operands[o];
        const ir_op *bc = NULL;
        if (x->def && x->def->code == PLUMB_OP_BROADCAST_IN_DIM && x->def->n_operands == 1) {
            bc = x->def;
            x = bc->operands[0];
        }
        /* Only parameters of f have values here. */
        if (x->def || x->index >= f->body.n_args || f->body.args[x->index] != x || !ins[x->index])
            return false;
        const plumb_tensor *p = ins[x->index];
        uint64_t at;
        if (bc) {
            if (bc->a.dims.n != p->rank)
                return false;
            at = broadcast_source(p, &bc->a.dims, idx);
        } else if (same_shape(p, out)) {
            at = i;
        } else if (plumb_tensor_numel(p) == 1) {
            at = 0;
        } else {
            return false;
        }
        char val[64];
        conf_describe_value(p->dtype, p->data, at, val, sizeof val);
        if (n < cap) {
            if (x->name)
                n += (size_t)snprintf(buf + n, cap - n, "%s%%%s=%s", o ? ", " : "", x->name, val);
            else
                n += (size_t)snprintf(buf + n, cap - n, "%s%%arg%u=%s", o ? ", " : "", x->index, val);
        }
    }
    return true;
}

/* The inputs of element i of result out of the case's program, when its
 * result out is an elementwise op on parameters (or broadcasts of them). */
static bool case_inputs(const conf_case *c, const plumb_tensor *t, uint32_t out, uint64_t i, char *buf, size_t cap)
{
    if (!c->program)
        return false;
    plumb_diag d;
    plumb_diag_clear(&d);
    ir_module *m = ir_parse(c->program, strlen(c->program), c->id, NULL, &d);
    if (!m)
        return false;
    bool ok = false;
    const ir_func *f = ir_module_find_func(m, "main");
    const ir_op *ret = f ? f->body.last : NULL;
    /* The body's last op is its return (func.return). */
    if (ret && out < ret->n_operands && f->body.n_args == c->n_inputs)
        ok = conf_describe_op_inputs(f, ret->operands[out], c->inputs, t, i, buf, cap);
    ir_module_free(m);
    return ok;
}

void conf_describe_reason(const conf_case *c, plumb_tensor *const *got, uint32_t n_got, uint32_t out,
                          uint64_t index, char *reason, size_t cap)
{
    if (out >= n_got || !got[out] || index >= plumb_tensor_numel(got[out]))
        return;
    char prefix[64];
    int pn = snprintf(prefix, sizeof prefix, "output %u element %llu", out, (unsigned long long)index);
    size_t plen = (size_t)pn;
    /* Only the checker's element lines are rewritten; whole-tensor reasons
     * (wrong type, wrong count) have no element to place. */
    if (pn <= 0 || strncmp(reason, prefix, plen) != 0 || (reason[plen] != ':' && reason[plen] != ' '))
        return;
    char where[8 * PLUMB_MAX_RANK + 8];
    conf_describe_index(got[out], index, where, sizeof where);
    char ins[320] = "";
    bool elementwise = plumb_op_get(c->op)->kind == PLUMB_KIND_ELEMENTWISE;
    if (elementwise && !case_inputs(c, got[out], out, index, ins, sizeof ins) &&
        !conf_describe_inputs(c->inputs, c->n_inputs, NULL, got[out], index, ins, sizeof ins))
        ins[0] = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s at %s%s%s%s", prefix, where, reason + plen, ins[0] ? "; inputs " : "", ins);
    snprintf(reason, cap, "%s", buf);
}
