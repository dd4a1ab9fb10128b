/* Planted fault: the runtime behind a compile cache keyed on the parameter
 * VALUES as well as the program text — the first run of a program on input
 * bytes not seen before with it builds (and counts) a new executable: the
 * recompile storm of a cache that hashes data instead of shapes. Results
 * stay correct: only a compile-count oracle can catch it (the fuzzer's
 * params mutator predicts 0 new compiles and sees 1). */
#include <stdlib.h>
#include <string.h>

#include "plumb/backend.h"
#include "../../../conformance/certify.h"

typedef struct pexec {
    plumb_backend_executable *inner;
    uint64_t text_hash;
} pexec;

/* The cache's keys (program text hash, input bytes hash) and the compiles
 * counted: the stats report these instead of the runtime's. One backend
 * instance at a time per process (as the runner and the fuzzer use it). */
#define PC_KEYS 4096
static uint64_t keys[PC_KEYS][2];
static uint32_t n_keys;
static uint64_t compiles;

static const plumb_backend_api *inner(void) { return conf_backend_runtime_api(PLUMB_BACKEND_ABI_MAJOR); }

static uint64_t fnv(uint64_t h, const void *data, uint64_t n)
{
    const unsigned char *p = data;
    for (uint64_t j = 0; j < n; j++)
        h = (h ^ p[j]) * 1099511628211ull;
    return h;
}

static uint64_t hash_inputs(const plumb_backend_buffer *in, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = in[i].data;
        for (uint64_t j = 0; j < in[i].byte_size; j++)
            h = (h ^ p[j]) * 1099511628211ull;
    }
    return h;
}

static plumb_backend_error *pc_compile(plumb_backend_compile_args *a)
{
    plumb_backend_compile_args ia = *a;
    plumb_backend_error *e = inner()->compile(&ia);
    if (e)
        return e;
    pexec *x = calloc(1, sizeof *x);
    if (!x) {
        plumb_backend_executable_free_args fa = {sizeof fa, a->backend, ia.executable};
        plumb_backend_error *fe = inner()->executable_free(&fa);
        if (fe)
            inner()->error_free(fe);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    x->inner = ia.executable;
    x->text_hash = fnv(1469598103934665603ull, a->program, a->program_size);
    a->executable = (plumb_backend_executable *)x;
    return NULL;
}

static plumb_backend_error *pc_free(plumb_backend_executable_free_args *a)
{
    pexec *x = (pexec *)a->executable;
    if (!x)
        return NULL;
    plumb_backend_executable_free_args ia = *a;
    ia.executable = x->inner;
    free(x);
    return inner()->executable_free(&ia);
}

static plumb_backend_error *pc_execute(plumb_backend_execute_args *a)
{
    pexec *x = (pexec *)a->executable;
    uint64_t h = hash_inputs(a->inputs, a->n_inputs);
    /* the fault: new values mean a new cache key, hence a build */
    uint32_t k = 0;
    while (k < n_keys && !(keys[k][0] == x->text_hash && keys[k][1] == h))
        k++;
    if (k == n_keys) {
        compiles++;
        if (n_keys < PC_KEYS) {
            keys[n_keys][0] = x->text_hash;
            keys[n_keys++][1] = h;
        }
    }
    plumb_backend_execute_args ia = *a;
    ia.executable = x->inner;
    plumb_backend_error *e = inner()->execute(&ia);
    a->outputs = ia.outputs;
    return e;
}

static plumb_backend_error *pc_stats(plumb_backend_stats_args *a)
{
    plumb_backend_error *e = inner()->stats(a);
    if (!e && a->stats && PLUMB_BACKEND_HAS_FIELD(a->stats, plumb_backend_stats, compiles))
        a->stats->compiles = compiles;
    return e;
}

static plumb_backend_error *pc_reset_stats(plumb_backend_reset_stats_args *a)
{
    compiles = 0;
    return inner()->reset_stats(a);
}

static plumb_backend_error *pc_create(plumb_backend_create_args *a)
{
    compiles = 0;
    n_keys = 0;
    return inner()->create(a);
}

static plumb_backend_api pc_api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *in = inner();
    if (abi_major != PLUMB_BACKEND_ABI_MAJOR || !in)
        return NULL;
    pc_api = *in;
    pc_api.name = "fault_cache_params";
    pc_api.version = "0.1.0-fault";
    pc_api.create = pc_create;
    pc_api.compile = pc_compile;
    pc_api.executable_free = pc_free;
    pc_api.execute = pc_execute;
    pc_api.stats = pc_stats;
    pc_api.reset_stats = pc_reset_stats;
    return &pc_api;
}
