/* Test plugin: the reference, except that executing a scalar f64 case
 * never returns; the runner's timeout must fail that case only. */
#include <string.h>
#include <unistd.h>
#include "certify.h"

static plumb_backend_api api;
static plumb_backend_error *(*ref_execute)(plumb_backend_execute_args *);

static plumb_backend_error *hang_execute(plumb_backend_execute_args *a)
{
    if (a->n_inputs >= 1 && strcmp(a->inputs[0].dtype, "f64") == 0 && a->inputs[0].rank == 0)
        for (;;)
            pause();
    return ref_execute(a);
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "run_hang";
    ref_execute = ref->execute;
    api.execute = hang_execute;
    return &api;
}
