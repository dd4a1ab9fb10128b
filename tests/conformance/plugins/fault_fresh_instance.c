/* Planted fault: declares determinism (the reference's capabilities), but
 * the first execution on each new instance flips the lowest bit of its
 * first result's first element (a warm-up path that differs from the steady
 * one). Two runs in one warm instance agree; a fresh instance in another
 * process does not: the runner's separate-process rerun sees it on the
 * cases it samples (and the repeat on the first case of a worker, or the
 * case after a sampled one, for which the worker makes a new instance). */
#include <string.h>
#include "certify.h"

static plumb_backend_api api;
static plumb_backend_error *(*ref_create)(plumb_backend_create_args *);
static plumb_backend_error *(*ref_execute)(plumb_backend_execute_args *);
/* Whether the newest instance has executed. A flag set by create, not the
 * instance's address: a new instance may well reuse a destroyed one's. */
static bool warm;

static plumb_backend_error *fresh_create(plumb_backend_create_args *a)
{
    warm = false;
    return ref_create(a);
}

static plumb_backend_error *fresh_execute(plumb_backend_execute_args *a)
{
    plumb_backend_error *e = ref_execute(a);
    if (e || warm)
        return e;
    warm = true;
    if (a->outputs && a->outputs->n_buffers > 0 && a->outputs->buffers[0].byte_size > 0)
        ((unsigned char *)a->outputs->buffers[0].data)[0] ^= 0x01;
    return NULL;
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "fault_fresh_instance";
    ref_create = ref->create;
    api.create = fresh_create;
    ref_execute = ref->execute;
    api.execute = fresh_execute;
    return &api;
}
