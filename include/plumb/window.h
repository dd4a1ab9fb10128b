/* Window geometry and body recognition shared by the reference
 * (ref/window.c) and the runtime (runtime/k_window.c) kernels of
 * reduce_window and select_and_scatter (docs/spec/window.md, "Window
 * geometry"), so both read the attributes, fill in their defaults and map
 * window positions the same way. */
#ifndef PLUMB_WINDOW_H
#define PLUMB_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/ir.h"

/* One op's window on an input of a given shape, every default filled in. */
typedef struct ir_window {
    uint32_t rank;
    int64_t in[PLUMB_MAX_RANK];        /* input sizes */
    int64_t w[PLUMB_MAX_RANK], s[PLUMB_MAX_RANK], b[PLUMB_MAX_RANK], wd[PLUMB_MAX_RANK], lo[PLUMB_MAX_RANK];
    int64_t dil[PLUMB_MAX_RANK];       /* base-dilated input sizes */
    int64_t out[PLUMB_MAX_RANK];       /* result sizes (windows per dimension) */
    int64_t istride[PLUMB_MAX_RANK];   /* row-major input element strides */
    uint64_t wcount;                   /* positions per window */
} ir_window;

/* Fills g from attributes a for an input of rank and dims; dilations false
 * (select_and_scatter) ignores base and window dilations. On an attribute
 * that does not fit the rank or a non-positive entry, writes why (naming
 * the dimension) and returns false. */
bool ir_window_init(ir_window *g, const ir_attrs *a, uint32_t rank, const int64_t *dims, bool dilations, char *why,
                    size_t why_len);

/* Input index along d at result index o and window position k, or -1 for
 * padding or a base-dilation hole. Base dilation 1 (every pooling shape)
 * skips the division. */
static inline int64_t ir_window_dim_at(const ir_window *g, uint32_t d, int64_t o, int64_t k)
{
    int64_t p = o * g->s[d] + k * g->wd[d] - g->lo[d];
    if (p < 0 || p >= g->dil[d])
        return -1;
    if (g->b[d] == 1)
        return p;
    return p % g->b[d] ? -1 : p / g->b[d];
}

/* The input's linear index at result index o and window position k, or -1. */
static inline int64_t ir_window_at(const ir_window *g, const int64_t *o, const int64_t *k)
{
    int64_t at = 0;
    for (uint32_t d = 0; d < g->rank; d++) {
        int64_t i = ir_window_dim_at(g, d, o[d], k[d]);
        if (i < 0)
            return -1;
        at += i * g->istride[d];
    }
    return at;
}

/* Steps idx through dims in row-major order; false after the last. */
bool ir_window_next_index(int64_t *idx, const int64_t *dims, uint32_t rank);

/* The bodies the kernels fold directly: `return op(a0, a1)` in either
 * argument order on scalars of the element type (and, or on integers only;
 * complex types are never recognised). */
typedef enum ir_window_body { IR_WB_GENERIC, IR_WB_ADD, IR_WB_MUL, IR_WB_MAX, IR_WB_MIN, IR_WB_AND, IR_WB_OR } ir_window_body;

ir_window_body ir_window_body_kind(const ir_block *b, plumb_dtype elem);

#endif
