/* Test plugin: a table whose struct_size ends before the functions that
 * ABI 1.0 requires. */
#include <stddef.h>
#include "plumb/backend.h"

static plumb_backend_api api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    api.struct_size = offsetof(plumb_backend_api, error_free);
    api.abi_major = abi_major;
    api.name = "bad_short";
    api.version = "0";
    return &api;
}
