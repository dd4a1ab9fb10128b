/* Test plugin: a backend built against ABI 1.1, before explain was appended
 * (1.2). Its table is the runtime's functions with the 1.1 struct_size and
 * minor; the bytes where 1.2 put explain hold a function that aborts, so a
 * loader that reads past struct_size fails the test instead of passing it. */
#include <stdlib.h>
#include <string.h>

#include "certify.h"

static plumb_backend_error *past_the_end(plumb_backend_explain_args *a)
{
    (void)a;
    abort();
}

/* A 1.1 backend knows only ABI 1.0's element-type bits: its capabilities
 * are the runtime's with the 1.3 bits (complex, FP8/FP6/FP4, sub-byte
 * integers) taken out, and an op left with no type dropped. Certification
 * then reports those types' cases as not claimed. */
static plumb_backend_error *(*inner_capabilities)(plumb_backend_capabilities_args *);
static plumb_backend_op_cap old_ops[256];
static plumb_backend_capabilities old_caps;

static plumb_backend_error *capabilities_1_1(plumb_backend_capabilities_args *a)
{
    plumb_backend_error *e = inner_capabilities(a);
    if (e)
        return e;
    const plumb_backend_capabilities *c = a->capabilities;
    old_caps = *c;
    size_t n = 0;
    for (size_t i = 0; i < c->n_ops && n < sizeof old_ops / sizeof old_ops[0]; i++) {
        if (!(c->ops[i].dtypes & PLUMB_BACKEND_DT_ALL_V1))
            continue;
        old_ops[n] = c->ops[i];
        old_ops[n].dtypes &= PLUMB_BACKEND_DT_ALL_V1;
        n++;
    }
    old_caps.ops = old_ops;
    old_caps.n_ops = n;
    a->capabilities = &old_caps;
    return NULL;
}

static plumb_backend_api api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *inner = conf_backend_runtime_api(abi_major);
    if (!inner)
        return NULL;
    memcpy(&api, inner, sizeof api);
    api.struct_size = PLUMB_BACKEND_API_SIZE_1_0;
    api.abi_minor = 1;
    api.name = "old_abi_1_1";
    api.explain = past_the_end;
    inner_capabilities = inner->capabilities;
    api.capabilities = capabilities_1_1;
    return &api;
}
