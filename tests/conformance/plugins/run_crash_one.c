/* Test plugin: the reference, except that it dies (SIGSEGV) executing the
 * one f32 exponential case whose input is a single element; every other
 * case must still be run and pass. */
#include <signal.h>
#include <string.h>
#include "certify.h"

static plumb_backend_api api;
static plumb_backend_error *(*ref_execute)(plumb_backend_execute_args *);

static plumb_backend_error *crash_execute(plumb_backend_execute_args *a)
{
    if (a->n_inputs == 1 && strcmp(a->inputs[0].dtype, "f32") == 0 && a->inputs[0].rank == 1 &&
        a->inputs[0].dims[0] == 1)
        raise(SIGSEGV);
    return ref_execute(a);
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "run_crash_one";
    ref_execute = ref->execute;
    api.execute = crash_execute;
    return &api;
}
