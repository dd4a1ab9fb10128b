/* Test plugin: capabilities that name an op plumb does not have. */
#include <string.h>
#include "certify.h"

static plumb_backend_api api;
static const plumb_backend_op_cap ops[] = {
    {sizeof(plumb_backend_op_cap), "stablehlo.add", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.frobnicate", PLUMB_BACKEND_DT_F32},
};
static const plumb_backend_capabilities caps = {
    .struct_size = sizeof(plumb_backend_capabilities),
    .ops = ops,
    .n_ops = 2,
};

static plumb_backend_error *bad_capabilities(plumb_backend_capabilities_args *a)
{
    a->capabilities = &caps;
    return NULL;
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "bad_caps";
    api.capabilities = bad_capabilities;
    return &api;
}
