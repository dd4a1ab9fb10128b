/* Planted fault: a backend that claims BOUNDED polymorphism
 * (PLUMB_BACKEND_POLY_BOUNDED: one compile serves every size within the
 * bounds) but specializes a program with `?` dimensions at execute time and
 * builds one executable per distinct size — the recompile storm of a
 * "dynamic" backend that is static underneath. Results stay correct (each
 * specialization is the runtime's static program at that size), so only
 * the cache-stability suite's polymorphic scenario can catch the claim:
 * it counts 20 compiles for 24 runs at 20 sizes where the claim allows 1.
 *
 * With PLUMB_FAULT_POLY_CLAIM=per-shape in the environment the same
 * behaviour is claimed truthfully (PLUMB_BACKEND_POLY_PER_SHAPE) and the
 * scenario passes; with PLUMB_FAULT_POLY_CLAIM=none it claims no
 * polymorphism and is given the refined static programs (one build per
 * size, as many as the scenario expects of such a backend). test_faults.sh
 * and tests/conformance/test_runner.c check all three. With
 * PLUMB_FAULT_POLY_NO_BOUND=1 it also runs inputs above their declared
 * bound instead of refusing them (the second fault the scenario probes).
 *
 * The specialization replaces every `?` of the program text with the size
 * the input has at the first `?` dimension of the parameters and drops the
 * #stablehlo.bounds encodings: right for programs in which every `?` stands
 * for that one size, as in the cache scenario and the conformance cases of
 * the "dyn_*" shape classes. It wraps plumb's runtime, which compiles the
 * specialized static text (and counts the compiles: its cache serves a size
 * seen before). */
#include <stdlib.h>
#include <string.h>

#include "plumb/backend.h"
#include "plumb/ir.h"
#include "../../../conformance/certify.h"

static const plumb_backend_api *inner(void) { return conf_backend_runtime_api(PLUMB_BACKEND_ABI_MAJOR); }

/* One size's executable. */
typedef struct spec {
    int64_t size;
    plumb_backend_executable *exe;
} spec;

#define PS_MAX 256
typedef struct pexec {
    char *text;                  /* the program as compiled (with `?`) */
    size_t len;
    plumb_backend_executable *plain;  /* a static program: compiled as it is */
    /* the entry's parameters: declared bound per dimension (PLUMB_NO_BOUND
     * for static and unbounded ones), so that a size above a bound is
     * refused as the ABI asks, whatever the claim */
    uint32_t n_params;
    int64_t bounds[8][PLUMB_MAX_RANK];
    int dyn_param, dyn_dim;      /* the first `?` of the parameters (-1: none) */
    spec specs[PS_MAX];
    uint32_t n_specs;
} pexec;

static void free_inner(plumb_backend *b, plumb_backend_executable *x)
{
    if (!x)
        return;
    plumb_backend_executable_free_args fa = {sizeof fa, b, x};
    plumb_backend_error *e = inner()->executable_free(&fa);
    if (e)
        inner()->error_free(e);
}

static plumb_backend_error *ps_compile(plumb_backend_compile_args *a)
{
    pexec *x = calloc(1, sizeof *x);
    char *t = malloc(a->program_size + 1);
    if (!x || !t) {
        free(x);
        free(t);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    memcpy(t, a->program, a->program_size);
    t[a->program_size] = 0;
    x->text = t;
    x->len = a->program_size;
    x->dyn_param = x->dyn_dim = -1;
    plumb_diag d;
    plumb_diag_clear(&d);
    ir_module *m = ir_parse(t, a->program_size, "program", NULL, &d);
    const char *entry = a->entry ? a->entry : "main";
    for (uint32_t i = 0; m && i < m->n_funcs; i++) {
        const ir_func *f = m->funcs[i];
        if (strcmp(f->name, entry) || f->body.n_args > 8)
            continue;
        x->n_params = f->body.n_args;
        for (uint32_t j = 0; j < f->body.n_args; j++)
            for (uint32_t k = 0; k < PLUMB_MAX_RANK; k++) {
                bool dyn = k < f->body.args[j]->type.rank && f->body.args[j]->type.dims[k] == PLUMB_DIM_DYN;
                x->bounds[j][k] = dyn ? f->body.args[j]->type.bounds[k] : PLUMB_NO_BOUND;
                if (dyn && x->dyn_param < 0) {
                    x->dyn_param = (int)j;
                    x->dyn_dim = (int)k;
                }
            }
    }
    ir_module_free(m);
    if (!memchr(t, '?', a->program_size)) {
        plumb_backend_compile_args ia = *a;
        plumb_backend_error *e = inner()->compile(&ia);
        if (e) {
            free(t);
            free(x);
            return e;
        }
        x->plain = ia.executable;
    }
    a->executable = (plumb_backend_executable *)x;
    return NULL;
}

/* The program text at one size: `?` -> size, ", #stablehlo.bounds<...>" dropped. */
static char *specialize(const char *text, int64_t size)
{
    size_t cap = strlen(text) * 4 + 64, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    static const char enc[] = ", #stablehlo.bounds<";
    for (const char *p = text; *p && n + 24 < cap;) {
        if (!strncmp(p, enc, sizeof enc - 1)) {
            const char *q = strchr(p + sizeof enc - 1, '>');
            if (!q)
                break;
            p = q + 1;
            continue;
        }
        if (*p == '?') {
            n += (size_t)snprintf(out + n, cap - n, "%lld", (long long)size);
            p++;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = 0;
    return out;
}

static plumb_backend_error *ps_execute(plumb_backend_execute_args *a)
{
    pexec *x = (pexec *)a->executable;
    plumb_backend_executable *exe = x->plain;
    const char *nb = getenv("PLUMB_FAULT_POLY_NO_BOUND");
    bool check_bounds = !(nb && !strcmp(nb, "1"));
    for (size_t i = 0; check_bounds && i < a->n_inputs && i < x->n_params; i++)
        for (uint32_t k = 0; k < a->inputs[i].rank && k < PLUMB_MAX_RANK; k++)
            if (x->bounds[i][k] != PLUMB_NO_BOUND && a->inputs[i].dims[k] > x->bounds[i][k])
                return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT,
                                     "parameter %zu dimension %u: size %lld exceeds its bound %lld", i, k,
                                     (long long)a->inputs[i].dims[k], (long long)x->bounds[i][k]);
    if (!exe) {
        int64_t size = 0;
        if (x->dyn_param >= 0 && (size_t)x->dyn_param < a->n_inputs &&
            (uint32_t)x->dyn_dim < a->inputs[x->dyn_param].rank)
            size = a->inputs[x->dyn_param].dims[x->dyn_dim];
        /* the fault: a new size is a new build */
        for (uint32_t k = 0; k < x->n_specs && !exe; k++)
            if (x->specs[k].size == size)
                exe = x->specs[k].exe;
        if (!exe) {
            if (x->n_specs == PS_MAX)
                return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "more than %d sizes", PS_MAX);
            char *s = specialize(x->text, size);
            if (!s)
                return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
            plumb_backend_compile_args ca = {sizeof ca, a->backend, s, strlen(s), NULL, NULL};
            plumb_backend_error *e = inner()->compile(&ca);
            free(s);
            if (e)
                return e;
            x->specs[x->n_specs].size = size;
            x->specs[x->n_specs++].exe = exe = ca.executable;
        }
    }
    plumb_backend_execute_args ia = *a;
    ia.executable = exe;
    plumb_backend_error *e = inner()->execute(&ia);
    a->outputs = ia.outputs;
    return e;
}

static plumb_backend_error *ps_free(plumb_backend_executable_free_args *a)
{
    pexec *x = (pexec *)a->executable;
    if (!x)
        return NULL;
    free_inner(a->backend, x->plain);
    for (uint32_t k = 0; k < x->n_specs; k++)
        free_inner(a->backend, x->specs[k].exe);
    free(x->text);
    free(x);
    return NULL;
}

static plumb_backend_capabilities caps;

static plumb_backend_error *ps_capabilities(plumb_backend_capabilities_args *a)
{
    plumb_backend_capabilities_args ia = *a;
    plumb_backend_error *e = inner()->capabilities(&ia);
    if (e)
        return e;
    caps = *ia.capabilities;
    const char *claim = getenv("PLUMB_FAULT_POLY_CLAIM");
    caps.polymorphic_shapes = claim && !strcmp(claim, "per-shape") ? PLUMB_BACKEND_POLY_PER_SHAPE
                            : claim && !strcmp(claim, "none")      ? PLUMB_BACKEND_POLY_NONE
                                                                   : PLUMB_BACKEND_POLY_BOUNDED;
    a->capabilities = &caps;
    return NULL;
}

static plumb_backend_api ps_api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *in = inner();
    if (abi_major != PLUMB_BACKEND_ABI_MAJOR || !in)
        return NULL;
    ps_api = *in;
    ps_api.name = "fault_poly_per_size";
    ps_api.version = "0.1.0-fault";
    ps_api.compile = ps_compile;
    ps_api.executable_free = ps_free;
    ps_api.execute = ps_execute;
    ps_api.capabilities = ps_capabilities;
    return &ps_api;
}
