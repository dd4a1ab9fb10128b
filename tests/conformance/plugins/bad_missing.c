/* Test plugin: the reference's table with execute missing. */
#include <string.h>
#include "certify.h"

static plumb_backend_api api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "bad_missing";
    api.execute = NULL;
    return &api;
}
