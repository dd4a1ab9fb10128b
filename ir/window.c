/* Window geometry and body recognition for reduce_window and
 * select_and_scatter (include/plumb/window.h, docs/spec/window.md). */
#include <stdio.h>

#include "plumb/window.h"

static int64_t attr_at(const ir_ints *l, uint32_t i, int64_t dflt) { return l->n ? l->v[i] : dflt; }

bool ir_window_init(ir_window *g, const ir_attrs *a, uint32_t rank, const int64_t *dims, bool dilations, char *why,
                    size_t why_len)
{
    if (a->window_dims.n != rank || (a->window_strides.n && a->window_strides.n != rank) ||
        (a->base_dilations.n && a->base_dilations.n != rank) || (a->window_dilations.n && a->window_dilations.n != rank) ||
        (a->padding.n && a->padding.n != 2 * rank) || rank > PLUMB_MAX_RANK) {
        snprintf(why, why_len, "window attributes do not match the input's rank %u", rank);
        return false;
    }
    /* the dimensions past the rank hold a size-1 window of stride 1, so a
     * kernel reading one (a rank-1 operand's dimension 1) reads defined
     * values that change nothing */
    for (uint32_t d = rank; d < PLUMB_MAX_RANK; d++) {
        g->in[d] = g->w[d] = g->s[d] = g->b[d] = g->wd[d] = g->dil[d] = g->out[d] = 1;
        g->lo[d] = 0;
        g->istride[d] = 1;
    }
    g->rank = rank;
    g->wcount = 1;
    int64_t st = 1;
    for (uint32_t d = rank; d-- > 0;) {
        g->istride[d] = st;
        st *= dims[d];
    }
    for (uint32_t d = 0; d < rank; d++) {
        g->in[d] = dims[d];
        g->w[d] = a->window_dims.v[d];
        g->s[d] = attr_at(&a->window_strides, d, 1);
        g->b[d] = dilations ? attr_at(&a->base_dilations, d, 1) : 1;
        g->wd[d] = dilations ? attr_at(&a->window_dilations, d, 1) : 1;
        g->lo[d] = a->padding.n ? a->padding.v[2 * d] : 0;
        int64_t hi = a->padding.n ? a->padding.v[2 * d + 1] : 0;
        if (g->w[d] <= 0 || g->s[d] <= 0 || g->b[d] <= 0 || g->wd[d] <= 0) {
            snprintf(why, why_len, "dimension %u: window, strides and dilations must be positive", d);
            return false;
        }
        /* sizes were bounded by the verifier; int64 holds these products */
        g->dil[d] = g->in[d] == 0 ? 0 : (g->in[d] - 1) * g->b[d] + 1;
        int64_t pad = g->lo[d] + g->dil[d] + hi;
        int64_t win = (g->w[d] - 1) * g->wd[d] + 1;
        g->out[d] = pad <= 0 || win > pad ? 0 : (pad - win) / g->s[d] + 1;
        g->wcount *= (uint64_t)g->w[d];
    }
    return true;
}

bool ir_window_next_index(int64_t *idx, const int64_t *dims, uint32_t rank)
{
    for (uint32_t d = rank; d-- > 0;) {
        if (++idx[d] < dims[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

ir_window_body ir_window_body_kind(const ir_block *b, plumb_dtype elem)
{
    /* complex values run the body itself: the direct folds are for real types */
    if (plumb_dtype_is_complex(elem))
        return IR_WB_GENERIC;
    if (b->n_args != 2 || b->n_ops != 2 || !b->first || !b->first->next)
        return IR_WB_GENERIC;
    const ir_op *o = b->first, *ret = o->next;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || o->n_results != 1 || ret->operands[0] != o->results[0] ||
        o->n_operands != 2)
        return IR_WB_GENERIC;
    for (uint32_t i = 0; i < 2; i++)
        if (b->args[i]->type.rank != 0 || b->args[i]->type.dtype != elem)
            return IR_WB_GENERIC;
    if (o->results[0]->type.dtype != elem || o->results[0]->type.rank != 0)
        return IR_WB_GENERIC;
    if (!((o->operands[0] == b->args[0] && o->operands[1] == b->args[1]) ||
          (o->operands[0] == b->args[1] && o->operands[1] == b->args[0])))
        return IR_WB_GENERIC;
    bool f = plumb_dtype_is_float(elem);
    switch (o->code) {
    case PLUMB_OP_ADD: return IR_WB_ADD;
    case PLUMB_OP_MULTIPLY: return IR_WB_MUL;
    case PLUMB_OP_MAXIMUM: return IR_WB_MAX;
    case PLUMB_OP_MINIMUM: return IR_WB_MIN;
    case PLUMB_OP_AND: return f ? IR_WB_GENERIC : IR_WB_AND;
    case PLUMB_OP_OR: return f ? IR_WB_GENERIC : IR_WB_OR;
    default: return IR_WB_GENERIC;
    }
}
