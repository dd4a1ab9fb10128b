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
    if (elementwise && !conf_describe_inputs(c->inputs, c->n_inputs, NULL, got[out], index, ins, sizeof ins))
        ins[0] = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s at %s%s%s%s", prefix, where, reason + plen, ins[0] ? "; inputs " : "", ins);
    snprintf(reason, cap, "%s", buf);
}
