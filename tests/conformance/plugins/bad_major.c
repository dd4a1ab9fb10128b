/* Test plugin: answers with a table of another ABI major version; the
 * loader must reject it before calling anything. */
#include <stddef.h>
#include "plumb/backend.h"

static const plumb_backend_api api = {
    .struct_size = sizeof(plumb_backend_api),
    .abi_major = PLUMB_BACKEND_ABI_MAJOR + 98,
    .abi_minor = 0,
    .name = "bad_major",
    .version = "0",
};

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    (void)abi_major;
    return &api;
}
