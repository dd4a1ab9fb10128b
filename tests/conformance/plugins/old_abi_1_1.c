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
    return &api;
}
