/* Planted fault: convolution with feature_group_count G > 1 slices the input
 * features into groups interleaved (feature c in group c mod G, slot c / G)
 * instead of in G contiguous blocks of C / G, as the spec's C = G blocks
 * split does: each output feature mixes channels of the wrong groups (a
 * depthwise layout mix-up). Equivalent to the correct convolution of an lhs
 * whose feature dimension is permuted, which is how it is planted: the inner
 * backend gets a permuted copy of the lhs (the caller's input is left alone). */
#define FAULT_NAME "fault_conv_group"
#define FAULT_EXECUTE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"

/* The lhs's feature dimension from the dim_numbers' first list (pretty
 * "dim_numbers = [b, 0, 1, f]x..." or generic "#stablehlo.conv<[b, 0, 1, f]x...");
 * -1 when the program has no grouped convolution. *groups = G. */
static int grouped_feature_dim(const char *t, int64_t *groups)
{
    const char *c = strstr(t, "stablehlo.convolution");
    if (!c) return -1;
    const char *g = strstr(c, "feature_group_count = ");
    if (!g) return -1;
    *groups = strtoll(g + strlen("feature_group_count = "), NULL, 10);
    if (*groups <= 1) return -1;
    const char *d = strstr(c, "dim_numbers = [");
    if (d) d += strlen("dim_numbers = [");
    else if ((d = strstr(c, "#stablehlo.conv<[")) != NULL) d += strlen("#stablehlo.conv<[");
    else return -1;
    for (int k = 0; *d && *d != ']'; d++) {
        if (*d == ',') k++;
        else if (*d == 'f') return k;
    }
    return -1;
}

static plumb_backend_error *fault_execute(plumb_backend_execute_args *a)
{
    fault_exec *fx = (fault_exec *)a->executable;
    plumb_backend_execute_args ia = *a;
    ia.executable = fx->inner;
    int64_t G = 0;
    int fd = grouped_feature_dim(fx->text, &G);
    plumb_backend_buffer *cp = NULL;
    void *data = NULL;
    const plumb_backend_buffer *x = a->n_inputs > 0 ? &a->inputs[0] : NULL;
    if (fd >= 0 && x && (uint32_t)fd < x->rank && x->dims[fd] % G == 0 && fault_numel(x) > 0) {
        int64_t C = x->dims[fd], per = C / G;
        uint64_t n = fault_numel(x), es = x->byte_size / n, inner = 1;
        for (uint32_t i = (uint32_t)fd + 1; i < x->rank; i++) inner *= (uint64_t)x->dims[i];
        uint64_t outer = n / (inner * (uint64_t)C);
        cp = malloc(a->n_inputs * sizeof *cp);
        data = malloc(x->byte_size);
        if (!cp || !data) {
            free(cp);
            free(data);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        memcpy(cp, a->inputs, a->n_inputs * sizeof *cp);
        const unsigned char *src = x->data;
        unsigned char *dst = data;
        /* position g * per + s (group g, slot s) gets feature s * G + g */
        for (uint64_t o = 0; o < outer; o++)
            for (int64_t p = 0; p < C; p++) {
                int64_t from = (p % per) * G + p / per;
                memcpy(dst + ((o * (uint64_t)C + (uint64_t)p) * inner) * es,
                       src + ((o * (uint64_t)C + (uint64_t)from) * inner) * es, inner * es);
            }
        cp[0].data = data;
        ia.inputs = cp;
    }
    plumb_backend_error *e = fault_inner()->execute(&ia);
    a->outputs = ia.outputs;
    free(cp);
    free(data);
    return e;
}
