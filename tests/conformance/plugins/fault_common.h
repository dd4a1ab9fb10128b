/* Shared scaffolding of the planted-fault backends: each wraps plumb's
 * reference backend (through the same ABI table it exports) and changes one
 * thing, declared in the fault's own file. A fault file defines
 * FAULT_NAME, and optionally fault_caps(), fault_compile_hook() and
 * fault_after_execute() before including this header (or FAULT_KEYED_CACHE
 * and fault_key(), below, for a lossy compile cache). */
#ifndef PLUMB_TESTS_FAULT_COMMON_H
#define PLUMB_TESTS_FAULT_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "plumb/backend.h"
#include "plumb/core.h"
#include "plumb/tensor.h"
#include "../../../conformance/certify.h"

typedef struct fault_exec {
    plumb_backend_executable *inner;
    char *text;                  /* the program it was compiled from */
    size_t len;
    int refs;                    /* the stale fault hands one out twice */
} fault_exec;

static const plumb_backend_api *fault_inner(void) { return conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR); }

static plumb_backend_error *fault_compile_plain(plumb_backend_compile_args *a, fault_exec **out)
{
    plumb_backend_compile_args ia = *a;
    plumb_backend_error *e = fault_inner()->compile(&ia);
    if (e) return e;
    fault_exec *fx = calloc(1, sizeof *fx);
    char *t = malloc(a->program_size + 1);
    if (!fx || !t) {
        free(fx);
        free(t);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    memcpy(t, a->program, a->program_size);
    t[a->program_size] = 0;
    fx->inner = ia.executable;
    fx->text = t;
    fx->len = a->program_size;
    fx->refs = 1;
    *out = fx;
    return NULL;
}

#if defined FAULT_KEYED_CACHE
/* A compile cache keyed on a lossy form of the program text: the fault
 * defines FAULT_KEYED_CACHE (how many entries it keeps) and fault_key(),
 * which returns a malloc'd key (NULL when out of memory). A program whose
 * key matches an earlier one's gets the earlier executable, which is what a
 * backend whose cache key forgets part of the program does. The results are
 * the inner backend's, unchanged. */
static char *fault_key(const char *s, size_t n);
static fault_exec *fault_cache[FAULT_KEYED_CACHE];
static char *fault_cache_key[FAULT_KEYED_CACHE];
static int fault_n_cache;

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *key = fault_key(a->program, a->program_size);
    if (!key) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    for (int i = 0; i < fault_n_cache; i++)
        if (!strcmp(fault_cache_key[i], key)) {
            free(key);
            fault_cache[i]->refs++;
            a->executable = (plumb_backend_executable *)fault_cache[i];
            return NULL;
        }
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(a, &fx);
    if (e) {
        free(key);
        return e;
    }
    if (fault_n_cache < FAULT_KEYED_CACHE) {
        fault_cache[fault_n_cache] = fx;
        fault_cache_key[fault_n_cache++] = key;
        fx->refs++;
    } else {
        free(key);
    }
    a->executable = (plumb_backend_executable *)fx;
    return NULL;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
#elif defined FAULT_COMPILE
static plumb_backend_error *fault_compile(plumb_backend_compile_args *a);
#else
static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(a, &fx);
    if (!e) a->executable = (plumb_backend_executable *)fx;
    return e;
}
#endif

static plumb_backend_error *fault_exec_free(plumb_backend_executable_free_args *a)
{
    fault_exec *fx = (fault_exec *)a->executable;
    if (!fx || --fx->refs > 0) return NULL;
    plumb_backend_executable_free_args ia = *a;
    ia.executable = fx->inner;
    plumb_backend_error *e = fault_inner()->executable_free(&ia);
    free(fx->text);
    free(fx);
    return e;
}

/* A fault that changes what the inner backend is given (not only what it
 * returns) defines FAULT_EXECUTE and its own fault_execute. */
#ifdef FAULT_EXECUTE
static plumb_backend_error *fault_execute(plumb_backend_execute_args *a);
#else
static plumb_backend_error *fault_execute(plumb_backend_execute_args *a)
{
    fault_exec *fx = (fault_exec *)a->executable;
    plumb_backend_execute_args ia = *a;
    ia.executable = fx->inner;
    plumb_backend_error *e = fault_inner()->execute(&ia);
    a->outputs = ia.outputs;
    if (!e) fault_after_execute(fx->text, a->inputs, a->n_inputs, a->outputs);
    return e;
}
#endif

static plumb_backend_capabilities fault_caps_v;

static plumb_backend_error *fault_capabilities(plumb_backend_capabilities_args *a)
{
    plumb_backend_capabilities_args ia = *a;
    plumb_backend_error *e = fault_inner()->capabilities(&ia);
    if (e) return e;
    fault_caps_v = *ia.capabilities;
    fault_caps(&fault_caps_v);
    a->capabilities = &fault_caps_v;
    return NULL;
}

static plumb_backend_api fault_api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *in = fault_inner();
    if (abi_major != PLUMB_BACKEND_ABI_MAJOR || !in) return NULL;
    fault_api = *in;
    fault_api.name = FAULT_NAME;
    fault_api.version = "0.1.0-fault";
    fault_api.compile = fault_compile;
    fault_api.executable_free = fault_exec_free;
    fault_api.execute = fault_execute;
    fault_api.capabilities = fault_capabilities;
    return &fault_api;
}

/* Element helpers over ABI buffers. */
static inline plumb_dtype fault_dtype(const plumb_backend_buffer *b)
{
    plumb_dtype t = PLUMB_I1;
    plumb_dtype_parse(b->dtype, strlen(b->dtype), &t);
    return t;
}

static inline uint64_t fault_numel(const plumb_backend_buffer *b)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < b->rank; i++) n *= (uint64_t)b->dims[i];
    return n;
}

#endif
