/* Planted fault: a reduction over a polymorphic dimension that loops to the
 * dimension's BOUND instead of its actual size — the classic bug of a
 * kernel planned at the bound (its buffer holds bound rows) that takes its
 * trip count from the plan rather than from the run. The rows past the
 * actual size hold whatever the buffer held: here a fixed garbage pattern.
 *
 * Programs with a `?` and a stablehlo.reduce run, on plumb's reference, as
 * the static program at the bound with each `?` input padded to the bound
 * by garbage rows; every other program runs as it is. Claims unbounded
 * polymorphism like the reference it wraps. The static cases never see
 * it, nor do the polymorphic cases of other ops: only the reduce cases of
 * the dyn_* family (sizes 0, 1 and 7 below the bound 16) fail
 * (test_faults.sh). */
#include <stdlib.h>
#include <string.h>

#include "plumb/backend.h"
#include "plumb/ir.h"
#include "../../../conformance/certify.h"

static const plumb_backend_api *inner(void) { return conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR); }

typedef struct rexec {
    plumb_backend_executable *plain;   /* the program as compiled */
    plumb_backend_executable *at_bound;/* the static program at the bound (faulty path), or NULL */
    uint32_t n_params;
    int64_t bound0[8];                 /* declared bound of dim 0 when it is `?`, else -1 */
} rexec;

static void free_inner(plumb_backend *b, plumb_backend_executable *x)
{
    if (!x)
        return;
    plumb_backend_executable_free_args fa = {sizeof fa, b, x};
    plumb_backend_error *e = inner()->executable_free(&fa);
    if (e)
        inner()->error_free(e);
}

/* The text with `?` -> bound and the bounds encodings dropped. */
static char *at_bound(const char *text, int64_t bound)
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
        } else if (*p == '?') {
            n += (size_t)snprintf(out + n, cap - n, "%lld", (long long)bound);
            p++;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return out;
}

static plumb_backend_error *rb_compile(plumb_backend_compile_args *a)
{
    rexec *x = calloc(1, sizeof *x);
    char *t = malloc(a->program_size + 1);
    if (!x || !t) {
        free(x);
        free(t);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    memcpy(t, a->program, a->program_size);
    t[a->program_size] = 0;
    plumb_backend_compile_args ia = *a;
    plumb_backend_error *e = inner()->compile(&ia);
    if (e) {
        free(t);
        free(x);
        return e;
    }
    x->plain = ia.executable;
    /* The faulty path: a reduction and a `?` dim 0 with a bound, on every
     * parameter that has a `?` (the dyn_* reduce cases). */
    int64_t bound = -1;
    plumb_diag d;
    plumb_diag_clear(&d);
    ir_module *m = strstr(t, "stablehlo.reduce") ? ir_parse(t, a->program_size, "program", NULL, &d) : NULL;
    for (uint32_t i = 0; m && i < m->n_funcs; i++) {
        const ir_func *f = m->funcs[i];
        if (strcmp(f->name, a->entry ? a->entry : "main") || f->body.n_args > 8)
            continue;
        x->n_params = f->body.n_args;
        for (uint32_t j = 0; j < f->body.n_args; j++) {
            const ir_type *ty = &f->body.args[j]->type;
            x->bound0[j] = ty->rank && ty->dims[0] == PLUMB_DIM_DYN ? ty->bounds[0] : -1;
            if (x->bound0[j] > 0)
                bound = x->bound0[j];
        }
    }
    ir_module_free(m);
    if (bound > 0) {
        char *s = at_bound(t, bound);
        plumb_backend_compile_args ca = {sizeof ca, a->backend, s, s ? strlen(s) : 0, a->entry, NULL};
        e = s ? inner()->compile(&ca) : conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        free(s);
        if (e) {
            free_inner(a->backend, x->plain);
            free(t);
            free(x);
            return e;
        }
        x->at_bound = ca.executable;
    }
    free(t);
    a->executable = (plumb_backend_executable *)x;
    return NULL;
}

static plumb_backend_error *rb_execute(plumb_backend_execute_args *a)
{
    rexec *x = (rexec *)a->executable;
    plumb_backend_execute_args ia = *a;
    ia.executable = x->plain;
    if (!x->at_bound || a->n_inputs != x->n_params) {
        plumb_backend_error *e = inner()->execute(&ia);
        a->outputs = ia.outputs;
        return e;
    }
    /* the fault: each `?` input padded to its bound with garbage rows */
    plumb_backend_buffer in[8];
    void *owned[8] = {0};
    plumb_backend_error *e = NULL;
    int64_t dims[8][PLUMB_MAX_RANK];
    for (size_t i = 0; i < a->n_inputs; i++) {
        in[i] = a->inputs[i];
        if (x->bound0[i] <= 0 || a->inputs[i].rank == 0 || a->inputs[i].dims[0] > x->bound0[i])
            continue;
        const plumb_backend_buffer *b = &a->inputs[i];
        uint64_t row = b->dims[0] ? b->byte_size / (uint64_t)b->dims[0] : 0;
        if (!b->dims[0]) {
            /* an empty input: a row is the product of the other dims */
            row = 1;
            for (uint32_t k = 1; k < b->rank; k++)
                row *= (uint64_t)b->dims[k];
            plumb_dtype t = PLUMB_F32;
            plumb_dtype_parse(b->dtype, strlen(b->dtype), &t);
            row *= plumb_dtype_size(t);
        }
        uint64_t bytes = row * (uint64_t)x->bound0[i];
        owned[i] = malloc(bytes ? bytes : 1);
        if (!owned[i]) {
            e = conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
            goto out;
        }
        memset(owned[i], 0x3c, bytes);   /* what the padding held: 0x3c3c3c3c (0.0115 in f32) */
        if (b->byte_size)
            memcpy(owned[i], b->data, b->byte_size);
        memcpy(dims[i], b->dims, b->rank * sizeof *b->dims);
        dims[i][0] = x->bound0[i];
        in[i].dims = dims[i];
        in[i].data = owned[i];
        in[i].byte_size = bytes;
    }
    ia.executable = x->at_bound;
    ia.inputs = in;
    e = inner()->execute(&ia);
    a->outputs = ia.outputs;
out:
    for (size_t i = 0; i < a->n_inputs; i++)
        free(owned[i]);
    return e;
}

static plumb_backend_error *rb_free(plumb_backend_executable_free_args *a)
{
    rexec *x = (rexec *)a->executable;
    if (!x)
        return NULL;
    free_inner(a->backend, x->plain);
    free_inner(a->backend, x->at_bound);
    free(x);
    return NULL;
}

static plumb_backend_api rb_api;

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *in = inner();
    if (abi_major != PLUMB_BACKEND_ABI_MAJOR || !in)
        return NULL;
    rb_api = *in;
    rb_api.name = "fault_dyn_reduce_bound";
    rb_api.version = "0.1.0-fault";
    rb_api.compile = rb_compile;
    rb_api.executable_free = rb_free;
    rb_api.execute = rb_execute;
    return &rb_api;
}
