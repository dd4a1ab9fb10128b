/* The canonical printer (docs/format.md): one spelling per module, so that
 * fmt(fmt(x)) == fmt(x) and parse(print(m)) is m again. Values are renumbered
 * per function: arguments of every block %arg0, %arg1, ... in order of
 * appearance, op results %0, %1, ... (`%3:2` / `%3#1` for several). */
#include <stdlib.h>
#include <string.h>

#include "plumb/dotalg.h"
#include "plumb/fft.h"
#include "plumb/ir.h"

#define ARG_FLAG 0x80000000u

typedef struct pr {
    plumb_buf *b;
    uint32_t *num;          /* per value id: 0 = unnamed, else number + 1 (| ARG_FLAG) */
    uint32_t cap;           /* entries in num */
    uint32_t next_arg, next_res;
} pr;

/* ---- naming ----------------------------------------------------------------- */

static void name_block(pr *q, const ir_block *blk);
static bool reduce_compact(const ir_op *op, plumb_opcode *body);

static void name_op(pr *q, const ir_op *op)
{
    if (op->n_results) {
        uint32_t n = q->next_res++;
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i] && op->results[i]->id < q->cap)
                q->num[op->results[i]->id] = n + 1;
    }
    plumb_opcode body;
    /* the `applies` shorthand prints no region, so it takes no names */
    if (op->code == PLUMB_OP_REDUCE && reduce_compact(op, &body))
        return;
    for (uint32_t r = 0; r < op->n_regions; r++)
        name_block(q, &op->regions[r]);
}

static void name_block(pr *q, const ir_block *blk)
{
    for (uint32_t i = 0; i < blk->n_args; i++)
        if (blk->args[i] && blk->args[i]->id < q->cap)
            q->num[blk->args[i]->id] = (q->next_arg++ + 1) | ARG_FLAG;
    for (const ir_op *op = blk->first; op; op = op->next)
        name_op(q, op);
}

static uint32_t max_id_block(const ir_block *blk);

static uint32_t max_id_op(const ir_op *op)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] && op->results[i]->id + 1 > m)
            m = op->results[i]->id + 1;
    for (uint32_t r = 0; r < op->n_regions; r++) {
        uint32_t k = max_id_block(&op->regions[r]);
        if (k > m)
            m = k;
    }
    return m;
}

static uint32_t max_id_block(const ir_block *blk)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < blk->n_args; i++)
        if (blk->args[i] && blk->args[i]->id + 1 > m)
            m = blk->args[i]->id + 1;
    for (const ir_op *op = blk->first; op; op = op->next) {
        uint32_t k = max_id_op(op);
        if (k > m)
            m = k;
    }
    return m;
}

static bool pr_init(pr *q, plumb_buf *b, uint32_t cap)
{
    memset(q, 0, sizeof *q);
    q->b = b;
    q->cap = cap;
    if (cap) {
        q->num = plumb_calloc(cap, sizeof *q->num);
        if (!q->num) {
            b->failed = true;
            return false;
        }
    }
    return true;
}

static void pr_free(pr *q)
{
    plumb_free(q->num, (size_t)q->cap * sizeof *q->num);
}

/* ---- small pieces ------------------------------------------------------------ */

static void puts_(pr *q, const char *s)
{
    plumb_buf_puts(q->b, s);
}

static void indent(pr *q, int n)
{
    for (int i = 0; i < n; i++)
        plumb_buf_append(q->b, " ", 1);
}

static void value(pr *q, const ir_value *v)
{
    uint32_t k = v && v->id < q->cap ? q->num[v->id] : 0;
    if (!k) {
        puts_(q, "%<unnamed>");
        return;
    }
    if (k & ARG_FLAG) {
        plumb_buf_printf(q->b, "%%arg%u", (k & ~ARG_FLAG) - 1);
        return;
    }
    if (v->def && v->def->n_results > 1)
        plumb_buf_printf(q->b, "%%%u#%u", k - 1, v->index);
    else
        plumb_buf_printf(q->b, "%%%u", k - 1);
}

static void values(pr *q, ir_value *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            puts_(q, ", ");
        value(q, v[i]);
    }
}

static void type(pr *q, const ir_type *t)
{
    ir_type_print(q->b, t);
}

static void ints(pr *q, ir_ints l)
{
    puts_(q, "[");
    for (uint32_t i = 0; i < l.n; i++)
        plumb_buf_printf(q->b, i ? ", %lld" : "%lld", (long long)l.v[i]);
    puts_(q, "]");
}

static void array_i64(pr *q, ir_ints l)
{
    puts_(q, "array<i64");
    for (uint32_t i = 0; i < l.n; i++)
        plumb_buf_printf(q->b, i ? ", %lld" : ": %lld", (long long)l.v[i]);
    puts_(q, ">");
}

static bool is_bare_id(const char *s)
{
    if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '$' || *s == '.'))
            return false;
    return true;
}

static void symbol(pr *q, const char *name)
{
    if (is_bare_id(name))
        plumb_buf_printf(q->b, "@%s", name);
    else
        plumb_buf_printf(q->b, "@\"%s\"", name ? name : "");
}

static const char *cmp_dir_name(ir_cmp_dir d)
{
    static const char *const n[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    return (unsigned)d < 6 ? n[d] : "EQ";
}

static const char *cmp_type_name(ir_cmp_type t)
{
    static const char *const n[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "WEAKORDER"};
    return (unsigned)t < sizeof n / sizeof n[0] ? n[t] : "NOTYPE";
}

static const char *precision_name(ir_precision p)
{
    static const char *const n[] = {"DEFAULT", "HIGH", "HIGHEST"};
    return (unsigned)p < 3 ? n[p] : "DEFAULT";
}

static const char *rng_name(ir_rng_alg a)
{
    static const char *const n[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
    return (unsigned)a < 3 ? n[a] : "DEFAULT";
}

/* Shortest %g spelling that reads back to the same double, always with a
 * '.' or exponent so that it reads as a float. */
static void print_double(pr *q, double v)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strcat(buf, ".0");
    puts_(q, buf);
}

/* Extra (uninterpreted) attributes as `name = text` entries. */
static void extra_entries(pr *q, const ir_attrs *a, bool first)
{
    for (uint32_t i = 0; i < a->n_extra; i++) {
        if (!first)
            puts_(q, ", ");
        first = false;
        if (is_bare_id(a->extra[i].name))
            puts_(q, a->extra[i].name);
        else
            plumb_buf_printf(q->b, "\"%s\"", a->extra[i].name);
        if (a->extra[i].text && a->extra[i].text[0]) {
            puts_(q, " = ");
            puts_(q, a->extra[i].text);
        }
    }
}

static void extra_dict(pr *q, const ir_attrs *a)
{
    if (!a->n_extra)
        return;
    puts_(q, " {");
    extra_entries(q, a, true);
    puts_(q, "}");
}

static void result_types(pr *q, const ir_op *op)
{
    if (op->n_results == 1) {
        type(q, &op->results[0]->type);
        return;
    }
    puts_(q, "(");
    for (uint32_t i = 0; i < op->n_results; i++) {
        if (i)
            puts_(q, ", ");
        type(q, &op->results[i]->type);
    }
    puts_(q, ")");
}

static void sig_functional(pr *q, const ir_op *op)
{
    puts_(q, " : (");
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (i)
            puts_(q, ", ");
        type(q, &op->operands[i]->type);
    }
    puts_(q, ") -> ");
    result_types(q, op);
}

/* `: T` when every operand and the result share T, `: P, T` for select,
 * the functional form otherwise. */
static void sig_ew(pr *q, const ir_op *op)
{
    if (op->n_results == 1 && op->n_operands >= 1) {
        const ir_type *r = &op->results[0]->type;
        bool same = true;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (!ir_type_equal(&op->operands[i]->type, r))
                same = false;
        if (same) {
            puts_(q, " : ");
            type(q, r);
            return;
        }
        if (op->code == PLUMB_OP_SELECT && op->n_operands == 3 && ir_type_equal(&op->operands[1]->type, r) &&
            ir_type_equal(&op->operands[2]->type, r)) {
            puts_(q, " : ");
            type(q, &op->operands[0]->type);
            puts_(q, ", ");
            type(q, r);
            return;
        }
    }
    sig_functional(q, op);
}

/* ---- ops ---------------------------------------------------------------------- */

static void print_op(pr *q, const ir_op *op, int ind);

static void print_ops(pr *q, const ir_block *blk, int ind)
{
    for (const ir_op *op = blk->first; op; op = op->next)
        print_op(q, op, ind);
}

static void string_lit(pr *q, const char *s);

/* A debug location in its canonical form (docs/format.md "Debug
 * locations"): ` loc("name"("file":L:C))`, ` loc("file":L:C)` or
 * ` loc("name")`; nothing when l is NULL or unknown. Aliases, callsites and
 * fused locations were resolved by the parser to this one position. */
static void debug_loc(pr *q, const ir_debug_loc *l)
{
    if (!ir_debug_loc_known(l))
        return;
    puts_(q, " loc(");
    if (l->name) {
        string_lit(q, l->name);
        if (l->file)
            puts_(q, "(");
    }
    if (l->file) {
        string_lit(q, l->file);
        plumb_buf_printf(q->b, ":%u:%u", l->line, l->col);
        if (l->name)
            puts_(q, ")");
    }
    puts_(q, ")");
}

static void block_args(pr *q, const ir_block *blk, uint32_t from, uint32_t step, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++) {
        const ir_value *v = blk->args[from + k * step];
        if (k)
            puts_(q, ", ");
        value(q, v);
        puts_(q, ": ");
        type(q, &v->type);
        debug_loc(q, v->dloc);
    }
}

/* A region in braces, its block's arguments (if any) in a ^bb0 header:
 * the generic form's regions and the body of chlo.scan's pretty form. */
static void region_body(pr *q, const ir_block *blk, int ind)
{
    puts_(q, "{\n");
    if (blk->n_args) {
        indent(q, ind);
        puts_(q, "^bb0(");
        block_args(q, blk, 0, 1, blk->n_args);
        puts_(q, "):\n");
    }
    print_ops(q, blk, ind + 2);
    indent(q, ind);
    puts_(q, "}");
}

/* The `applies OP` shorthand fits a one-input reduce whose body is one
 * binary elementwise op over the two arguments, returned as is. */
static bool reduce_compact(const ir_op *op, plumb_opcode *body)
{
    if (op->n_operands != 2 || op->n_regions != 1)
        return false;
    const ir_block *r = &op->regions[0];
    if (r->n_args != 2 || r->n_ops != 2)
        return false;
    const ir_type *t = &op->operands[1]->type;
    if (!ir_type_equal(&r->args[0]->type, t) || !ir_type_equal(&r->args[1]->type, t))
        return false;
    const ir_op *b = r->first, *ret = b->next;
    /* the shorthand has nowhere to write the body's debug locations */
    if (ir_debug_loc_known(r->args[0]->dloc) || ir_debug_loc_known(r->args[1]->dloc) ||
        ir_debug_loc_known(&b->dloc) || ir_debug_loc_known(&ret->dloc))
        return false;
    const plumb_op_info *in = plumb_op_get(b->code);
    if (in->syntax != PLUMB_SYN_EW || in->arity != 2 || b->n_operands != 2 || b->n_results != 1 || b->n_regions ||
        b->a.n_extra || b->operands[0] != r->args[0] || b->operands[1] != r->args[1] ||
        !ir_type_equal(&b->results[0]->type, t))
        return false;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || ret->operands[0] != b->results[0] || ret->a.n_extra)
        return false;
    *body = b->code;
    return true;
}

static bool reduce_compact_ok(const ir_op *op)
{
    plumb_opcode body;
    return reduce_compact(op, &body);
}

static void print_reduce(pr *q, const ir_op *op, int ind)
{
    uint32_t n = op->n_operands / 2;
    puts_(q, "stablehlo.reduce");
    for (uint32_t i = 0; i < n; i++) {
        puts_(q, i ? ", (" : "(");
        value(q, op->operands[i]);
        puts_(q, " init: ");
        value(q, op->operands[n + i]);
        puts_(q, ")");
    }
    plumb_opcode body;
    bool compact = reduce_compact(op, &body);
    if (compact) {
        puts_(q, " applies ");
        puts_(q, plumb_op_name(body));
    }
    puts_(q, " across dimensions = ");
    ints(q, op->a.dims);
    extra_dict(q, &op->a);
    sig_functional(q, op);
    if (compact || op->n_regions != 1)
        return;
    const ir_block *r = &op->regions[0];
    puts_(q, "\n");
    indent(q, ind + 2);
    puts_(q, "reducer");
    uint32_t m = r->n_args / 2;
    for (uint32_t i = 0; i < m; i++) {
        puts_(q, i ? " (" : "(");
        block_args(q, r, i, m, 2);
        puts_(q, ")");
    }
    puts_(q, " {\n");
    print_ops(q, r, ind + 4);
    indent(q, ind + 2);
    puts_(q, "}");
}

static bool is_const_check(plumb_opcode c)
{
    return c == PLUMB_OP_EXPECT_EQ_CONST || c == PLUMB_OP_EXPECT_CLOSE_CONST || c == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
}

static void print_check(pr *q, const ir_op *op)
{
    const ir_attrs *a = &op->a;
    puts_(q, "stablehlo.custom_call ");
    symbol(q, plumb_op_name(op->code));
    puts_(q, "(");
    values(q, op->operands, op->n_operands);
    puts_(q, ") {has_side_effect = true");
    if (op->code == PLUMB_OP_EXPECT_ALMOST_EQ || op->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST) {
        puts_(q, ", tolerance = ");
        print_double(q, a->tolerance);
    }
    if (op->code == PLUMB_OP_EXPECT_CLOSE || op->code == PLUMB_OP_EXPECT_CLOSE_CONST)
        plumb_buf_printf(q->b, ", max_ulp_difference = %llu, min_ulp_difference = %llu",
                         (unsigned long long)(uint64_t)a->max_ulp, (unsigned long long)(uint64_t)a->min_ulp);
    if (is_const_check(op->code) && a->value) {
        puts_(q, ", value = ");
        plumb_dense_print(q->b, a->value, false);
        puts_(q, " : ");
        plumb_tensor_type_print(q->b, a->value);
    }
    extra_entries(q, a, false);
    puts_(q, "}");
    sig_functional(q, op);
}

/* An MLIR string literal: '"' and '\\' escaped, and every byte outside
 * printable ASCII as \XX, so the text reads back byte for byte. */
static void string_lit(pr *q, const char *s)
{
    puts_(q, "\"");
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
        if (*c == '"' || *c == '\\')
            plumb_buf_printf(q->b, "\\%c", *c);
        else if (*c == '\n')
            puts_(q, "\\n");
        else if (*c < 0x20 || *c >= 0x7f)
            plumb_buf_printf(q->b, "\\%02X", *c);
        else
            plumb_buf_append(q->b, (const char *)c, 1);
    }
    puts_(q, "\"");
}

static void print_shape_assertion(pr *q, const ir_op *op)
{
    puts_(q, "stablehlo.custom_call @shape_assertion(");
    values(q, op->operands, op->n_operands);
    puts_(q, ") {error_message = ");
    string_lit(q, op->a.message ? op->a.message : "");
    puts_(q, ", has_side_effect = true");
    extra_entries(q, &op->a, false);
    puts_(q, "}");
    sig_functional(q, op);
}

/* dynamic_broadcast_in_dim's optional hints go in its attribute
 * dictionary, before any uninterpreted attribute, as StableHLO prints them. */
static void dyn_broadcast_dict(pr *q, const ir_attrs *a)
{
    if (!a->known_expanding.n && !a->known_nonexpanding.n) {
        extra_dict(q, a);
        return;
    }
    puts_(q, " {");
    bool first = true;
    if (a->known_expanding.n) {
        puts_(q, "known_expanding_dimensions = ");
        array_i64(q, a->known_expanding);
        first = false;
    }
    if (a->known_nonexpanding.n) {
        puts_(q, first ? "known_nonexpanding_dimensions = " : ", known_nonexpanding_dimensions = ");
        array_i64(q, a->known_nonexpanding);
    }
    extra_entries(q, a, false);
    puts_(q, "}");
}

static void gather_scatter_field(pr *q, bool *first, const char *name, ir_ints l)
{
    if (!l.n)
        return;
    if (!*first)
        puts_(q, ", ");
    *first = false;
    puts_(q, name);
    puts_(q, " = ");
    ints(q, l);
}

/* The properties `<{...}>` of the ops printed in generic form. */
static void conv_ints(pr *q, const int64_t *v, uint32_t n);
static void conv_dims_list(pr *q, char l0, char l1, int64_t d0, int64_t d1, const int64_t *sp, uint32_t n_sp);
static bool conv_list_ok(int64_t d0, int64_t d1, const int64_t *sp, uint32_t n_sp);

static void generic_props(pr *q, const ir_op *op)
{
    const ir_attrs *a = &op->a;
    bool first = true;
    switch (op->code) {
    case PLUMB_OP_GATHER:
    case PLUMB_OP_DYNAMIC_GATHER:
        puts_(q, " <{dimension_numbers = #stablehlo.gather<");
        gather_scatter_field(q, &first, "offset_dims", a->offset_dims);
        gather_scatter_field(q, &first, "collapsed_slice_dims", a->collapsed_slice_dims);
        gather_scatter_field(q, &first, "operand_batching_dims", a->operand_batching_dims);
        gather_scatter_field(q, &first, "start_indices_batching_dims", a->start_indices_batching_dims);
        gather_scatter_field(q, &first, "start_index_map", a->start_index_map);
        plumb_buf_printf(q->b, "%sindex_vector_dim = %lld>", first ? "" : ", ", (long long)a->index_vector_dim);
        if (a->indices_are_sorted)
            puts_(q, ", indices_are_sorted = true");
        if (op->code == PLUMB_OP_GATHER) {
            puts_(q, ", slice_sizes = ");
            array_i64(q, a->sizes);
        }
        puts_(q, "}>");
        break;
    case PLUMB_OP_SCATTER:
        puts_(q, " <{scatter_dimension_numbers = #stablehlo.scatter<");
        gather_scatter_field(q, &first, "update_window_dims", a->update_window_dims);
        gather_scatter_field(q, &first, "inserted_window_dims", a->inserted_window_dims);
        gather_scatter_field(q, &first, "input_batching_dims", a->input_batching_dims);
        gather_scatter_field(q, &first, "scatter_indices_batching_dims", a->scatter_indices_batching_dims);
        gather_scatter_field(q, &first, "scatter_dims_to_operand_dims", a->scatter_dims_to_operand_dims);
        plumb_buf_printf(q->b, "%sindex_vector_dim = %lld>", first ? "" : ", ", (long long)a->index_vector_dim);
        if (a->indices_are_sorted)
            puts_(q, ", indices_are_sorted = true");
        if (a->unique_indices)
            puts_(q, ", unique_indices = true");
        puts_(q, "}>");
        break;
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV: {
        /* convolution: an op the letters form cannot say, its fields as
         * they are; dynamic_conv (always generic, as StableHLO prints it):
         * the letters form when the lists allow it */
        const ir_conv *cv = a->conv;
        if (!cv)
            break;
        if (op->code == PLUMB_OP_DYNAMIC_CONV && conv_list_ok(cv->in_batch, cv->in_feature, cv->in_spatial, cv->n_spatial) &&
            conv_list_ok(cv->k_in_feature, cv->k_out_feature, cv->k_spatial, cv->n_spatial) &&
            conv_list_ok(cv->out_batch, cv->out_feature, cv->out_spatial, cv->n_spatial)) {
            plumb_buf_printf(q->b, " <{batch_group_count = %lld : i64, dimension_numbers = #stablehlo.conv<",
                             (long long)cv->batch_group_count);
            conv_dims_list(q, 'b', 'f', cv->in_batch, cv->in_feature, cv->in_spatial, cv->n_spatial);
            puts_(q, "x");
            conv_dims_list(q, 'i', 'o', cv->k_in_feature, cv->k_out_feature, cv->k_spatial, cv->n_spatial);
            puts_(q, "->");
            conv_dims_list(q, 'b', 'f', cv->out_batch, cv->out_feature, cv->out_spatial, cv->n_spatial);
        } else {
            plumb_buf_printf(q->b, " <{batch_group_count = %lld : i64, dimension_numbers = #stablehlo.conv<raw "
                             "input_batch_dimension = %lld, input_feature_dimension = %lld, input_spatial_dimensions = ",
                             (long long)cv->batch_group_count, (long long)cv->in_batch, (long long)cv->in_feature);
            conv_ints(q, cv->in_spatial, cv->n_spatial);
            plumb_buf_printf(q->b, ", kernel_input_feature_dimension = %lld, kernel_output_feature_dimension = %lld, "
                             "kernel_spatial_dimensions = ", (long long)cv->k_in_feature, (long long)cv->k_out_feature);
            conv_ints(q, cv->k_spatial, cv->n_spatial);
            plumb_buf_printf(q->b, ", output_batch_dimension = %lld, output_feature_dimension = %lld, output_spatial_dimensions = ",
                             (long long)cv->out_batch, (long long)cv->out_feature);
            conv_ints(q, cv->out_spatial, cv->n_spatial);
        }
        plumb_buf_printf(q->b, ">, feature_group_count = %lld : i64", (long long)cv->feature_group_count);
        ir_ints l;
        if (cv->n_lhs_dilation) {
            l = (ir_ints){(int64_t *)cv->lhs_dilation, cv->n_lhs_dilation};
            puts_(q, ", lhs_dilation = ");
            array_i64(q, l);
        }
        if (cv->n_padding) {
            puts_(q, ", padding = dense<[");
            for (uint32_t i = 0; i < cv->n_padding; i++)
                plumb_buf_printf(q->b, "%s[%lld, %lld]", i ? ", " : "", (long long)cv->pad_lo[i], (long long)cv->pad_hi[i]);
            plumb_buf_printf(q->b, "]> : tensor<%ux2xi64>", cv->n_padding);
        }
        if (a->has_precision)
            plumb_buf_printf(q->b, ", precision_config = [#stablehlo<precision %s>, #stablehlo<precision %s>]",
                             precision_name(a->precision[0]), precision_name(a->precision[1]));
        if (cv->n_rhs_dilation) {
            l = (ir_ints){(int64_t *)cv->rhs_dilation, cv->n_rhs_dilation};
            puts_(q, ", rhs_dilation = ");
            array_i64(q, l);
        }
        if (cv->n_reversal) {
            puts_(q, ", window_reversal = array<i1: ");
            for (uint32_t i = 0; i < cv->n_reversal; i++)
                plumb_buf_printf(q->b, "%s%s", i ? ", " : "", cv->reversal[i] ? "true" : "false");
            puts_(q, ">");
        }
        if (cv->n_strides) {
            l = (ir_ints){(int64_t *)cv->strides, cv->n_strides};
            puts_(q, ", window_strides = ");
            array_i64(q, l);
        }
        puts_(q, "}>");
        break;
    }
    case PLUMB_OP_SORT:
        plumb_buf_printf(q->b, " <{dimension = %lld : i64%s}>", (long long)a->dimension, a->is_stable ? ", is_stable = true" : "");
        break;
    case PLUMB_OP_CONCATENATE:
        plumb_buf_printf(q->b, " <{dimension = %lld : i64}>", (long long)a->dimension);
        break;
    case PLUMB_OP_SCAN:   /* only an invalid scan prints generic (pretty_fits) */
        plumb_buf_printf(q->b, " <{dimension = %lld : i64%s%s%s, operandSegmentSizes = array<i32: %lld, %u>}>",
                         (long long)a->dimension, a->has_is_associative ? ", is_associative = " : "",
                         a->has_is_associative ? (a->is_associative ? "true" : "false") : "",
                         a->is_reverse ? ", is_reverse = true" : "",
                         (long long)op->n_operands - (long long)a->n_inits, a->n_inits);
        break;
    case PLUMB_OP_RAGGED_DOT: {
        /* every field, empty ones too, as upstream's tests write it */
        const char *names[6] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                                "rhs_contracting_dimensions", "lhs_ragged_dimensions", "rhs_group_dimensions"};
        const ir_ints *lists[6] = {&a->lhs_batch, &a->rhs_batch, &a->lhs_contract, &a->rhs_contract, &a->lhs_ragged,
                                   &a->rhs_group};
        puts_(q, " <{");
        if (a->has_precision)
            plumb_buf_printf(q->b, "precision_config = [#chlo<precision %s>, #chlo<precision %s>], ",
                             precision_name(a->precision[0]), precision_name(a->precision[1]));
        puts_(q, "ragged_dot_dimension_numbers = #chlo.ragged_dot<");
        for (int i = 0; i < 6; i++) {
            plumb_buf_printf(q->b, "%s%s = ", i ? ", " : "", names[i]);
            ints(q, *lists[i]);
        }
        puts_(q, ">}>");
        break;
    }
    case PLUMB_OP_TRIANGULAR_SOLVE:
        plumb_buf_printf(q->b, " <{left_side = %s, lower = %s, transpose_a = #stablehlo<transpose %s>, unit_diagonal = %s}>",
                         a->left_side ? "true" : "false", a->lower ? "true" : "false",
                         a->transpose_a == IR_TRANSPOSE_TRANSPOSE ? "TRANSPOSE"
                         : a->transpose_a == IR_TRANSPOSE_ADJOINT ? "ADJOINT" : "NO_TRANSPOSE",
                         a->unit_diagonal ? "true" : "false");
        break;
    case PLUMB_OP_CHOLESKY:
        plumb_buf_printf(q->b, " <{lower = %s}>", a->lower ? "true" : "false");
        break;
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD: {
        /* epsilon as MLIR prints an f32: %e with the fewest digits (6 to 8
         * after the point) that read back to the same f32; a non-finite
         * value as its bit pattern */
        float e = (float)a->epsilon;
        char num[48];
        if (e - e != 0.0f) {
            uint32_t b;
            memcpy(&b, &e, sizeof b);
            snprintf(num, sizeof num, "0x%08X", (unsigned)b);
        } else {
            for (int prec = 6; prec <= 8; prec++) {
                snprintf(num, sizeof num, "%.*e", prec, (double)e);
                if (strtof(num, NULL) == e)
                    break;
            }
        }
        plumb_buf_printf(q->b, " <{epsilon = %s : f32, feature_index = %lld : i64}>", num, (long long)a->feature_index);
        break;
    }
    case PLUMB_OP_FFT:
        plumb_buf_printf(q->b, " <{fft_length = ");
        array_i64(q, a->fft_length);
        plumb_buf_printf(q->b, ", fft_type = #stablehlo<fft_type %s>}>", ir_fft_type_name(a->fft_type));
        break;
    case PLUMB_OP_CONSTANT:
        if (a->value) {
            puts_(q, " <{value = ");
            plumb_dense_print(q->b, a->value, false);
            puts_(q, " : ");
            plumb_tensor_type_print(q->b, a->value);
            puts_(q, "}>");
        }
        break;
    case PLUMB_OP_COMPOSITE:
        if (a->callee) {
            puts_(q, " <{decomposition = ");
            symbol(q, a->callee);
            puts_(q, "}>");
        }
        break;
    case PLUMB_OP_REDUCE:
    case PLUMB_OP_MAP:
        puts_(q, " <{dimensions = ");
        array_i64(q, a->dims);
        puts_(q, "}>");
        break;
    case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER: {
        /* StableHLO's order; the optional lists only when written */
        bool any = false;
        if (a->base_dilations.n) {
            puts_(q, " <{base_dilations = ");
            array_i64(q, a->base_dilations);
            any = true;
        }
        if (a->padding.n) {
            puts_(q, any ? ", padding = dense<[" : " <{padding = dense<[");
            for (uint32_t i = 0; i + 1 < a->padding.n; i += 2)
                plumb_buf_printf(q->b, "%s[%lld, %lld]", i ? ", " : "", (long long)a->padding.v[i],
                                 (long long)a->padding.v[i + 1]);
            plumb_buf_printf(q->b, "]> : tensor<%ux2xi64>", a->padding.n / 2);
            any = true;
        }
        puts_(q, any ? ", window_dimensions = " : " <{window_dimensions = ");
        array_i64(q, a->window_dims);
        if (a->window_dilations.n) {
            puts_(q, ", window_dilations = ");
            array_i64(q, a->window_dilations);
        }
        if (a->window_strides.n) {
            puts_(q, ", window_strides = ");
            array_i64(q, a->window_strides);
        }
        puts_(q, "}>");
        break;
    }
    case PLUMB_OP_GET_TUPLE_ELEMENT:
        plumb_buf_printf(q->b, " <{index = %lld : i32}>", (long long)a->tuple_index);
        break;
    case PLUMB_OP_SLICE:
        puts_(q, " <{start_indices = ");
        array_i64(q, a->start);
        puts_(q, ", limit_indices = ");
        array_i64(q, a->limit);
        puts_(q, ", strides = ");
        array_i64(q, a->strides);
        puts_(q, "}>");
        break;
    default:
        break;
    }
}

static void print_generic(pr *q, const ir_op *op, int ind)
{
    plumb_buf_printf(q->b, "\"%s\"(", plumb_op_name(op->code));
    values(q, op->operands, op->n_operands);
    puts_(q, ")");
    generic_props(q, op);
    if (op->n_regions) {
        puts_(q, " (");
        for (uint32_t r = 0; r < op->n_regions; r++) {
            const ir_block *blk = &op->regions[r];
            puts_(q, r ? ", " : "");
            region_body(q, blk, ind);
        }
        puts_(q, ")");
    }
    extra_dict(q, &op->a);
    sig_functional(q, op);
}

/* One `[b, 0, 1, f]` list: position = dimension number. */
static void conv_dims_list(pr *q, char l0, char l1, int64_t d0, int64_t d1, const int64_t *sp, uint32_t n_sp)
{
    uint32_t rank = n_sp + 2;
    puts_(q, "[");
    for (uint32_t pos = 0; pos < rank; pos++) {
        if (pos)
            puts_(q, ", ");
        if (d0 == (int64_t)pos) {
            plumb_buf_printf(q->b, "%c", l0);
        } else if (d1 == (int64_t)pos) {
            plumb_buf_printf(q->b, "%c", l1);
        } else {
            uint32_t k = 0;
            while (k < n_sp && sp[k] != (int64_t)pos)
                k++;
            /* a position no dimension names (only an invalid op has one) */
            if (k < n_sp)
                plumb_buf_printf(q->b, "%u", k);
            else
                puts_(q, "?");
        }
    }
    puts_(q, "]");
}

/* Whether the lists can be written as letters: every position named once. */
static bool conv_list_ok(int64_t d0, int64_t d1, const int64_t *sp, uint32_t n_sp)
{
    uint32_t rank = n_sp + 2;
    uint64_t seen = 0;
    int64_t all[PLUMB_MAX_RANK];
    all[0] = d0;
    all[1] = d1;
    for (uint32_t k = 0; k < n_sp; k++)
        all[k + 2] = sp[k];
    for (uint32_t i = 0; i < rank; i++) {
        if (all[i] < 0 || all[i] >= (int64_t)rank || (seen & (1ull << all[i])))
            return false;
        seen |= 1ull << all[i];
    }
    return true;
}

static void conv_ints(pr *q, const int64_t *v, uint32_t n)
{
    puts_(q, "[");
    for (uint32_t i = 0; i < n; i++)
        plumb_buf_printf(q->b, "%s%lld", i ? ", " : "", (long long)v[i]);
    puts_(q, "]");
}

static void print_conv(pr *q, const ir_op *op)
{
    const ir_attrs *a = &op->a;
    const ir_conv *cv = a->conv;
    puts_(q, "stablehlo.convolution(");
    values(q, op->operands, op->n_operands);
    puts_(q, ") dim_numbers = ");
    conv_dims_list(q, 'b', 'f', cv->in_batch, cv->in_feature, cv->in_spatial, cv->n_spatial);
    puts_(q, "x");
    conv_dims_list(q, 'i', 'o', cv->k_in_feature, cv->k_out_feature, cv->k_spatial, cv->n_spatial);
    puts_(q, "->");
    conv_dims_list(q, 'b', 'f', cv->out_batch, cv->out_feature, cv->out_spatial, cv->n_spatial);
    puts_(q, ", window = {");
    const char *sep = "";
    if (cv->n_strides) {
        puts_(q, "stride = ");
        conv_ints(q, cv->strides, cv->n_strides);
        sep = ", ";
    }
    if (cv->n_padding) {
        plumb_buf_printf(q->b, "%spad = [", sep);
        for (uint32_t i = 0; i < cv->n_padding; i++)
            plumb_buf_printf(q->b, "%s[%lld, %lld]", i ? ", " : "", (long long)cv->pad_lo[i], (long long)cv->pad_hi[i]);
        puts_(q, "]");
        sep = ", ";
    }
    if (cv->n_lhs_dilation) {
        plumb_buf_printf(q->b, "%slhs_dilate = ", sep);
        conv_ints(q, cv->lhs_dilation, cv->n_lhs_dilation);
        sep = ", ";
    }
    if (cv->n_rhs_dilation) {
        plumb_buf_printf(q->b, "%srhs_dilate = ", sep);
        conv_ints(q, cv->rhs_dilation, cv->n_rhs_dilation);
        sep = ", ";
    }
    if (cv->n_reversal) {
        plumb_buf_printf(q->b, "%sreverse = [", sep);
        for (uint32_t i = 0; i < cv->n_reversal; i++)
            plumb_buf_printf(q->b, "%s%s", i ? ", " : "", cv->reversal[i] ? "true" : "false");
        puts_(q, "]");
    }
    plumb_buf_printf(q->b, "} {batch_group_count = %lld : i64, feature_group_count = %lld : i64",
                     (long long)cv->batch_group_count, (long long)cv->feature_group_count);
    if (a->has_precision)
        plumb_buf_printf(q->b, ", precision_config = [#stablehlo<precision %s>, #stablehlo<precision %s>]",
                         precision_name(a->precision[0]), precision_name(a->precision[1]));
    extra_entries(q, a, false);
    puts_(q, "}");
    sig_functional(q, op);
}

/* A composite's attribute kept verbatim (name, composite_attributes), or NULL. */
static const ir_named_attr *composite_extra(const ir_attrs *a, const char *name)
{
    for (uint32_t i = 0; i < a->n_extra; i++)
        if (strcmp(a->extra[i].name, name) == 0)
            return &a->extra[i];
    return NULL;
}

/* True when op's pretty form can say everything op holds. The pretty forms
 * pair reduce inputs with inits and body arguments, and slice starts with
 * limits and strides; an op that does not fit (invalid, but the verifier
 * must see it as written) prints in the generic form, which says it all. */
static bool pretty_fits(const ir_op *op)
{
    const ir_attrs *a = &op->a;
    switch (op->code) {
    case PLUMB_OP_COMPOSITE:
        /* the pretty form starts with the name and always writes the
         * decomposition */
        return composite_extra(a, "name") && composite_extra(a, "name")->text && a->callee;
    case PLUMB_OP_REDUCE:
        return op->n_operands >= 2 && op->n_operands % 2 == 0 && op->n_regions == 1 &&
               (reduce_compact_ok(op) || op->regions[0].n_args == op->n_operands);
    case PLUMB_OP_SLICE:
        return a->start.n == a->limit.n && a->start.n == a->strides.n;
    case PLUMB_OP_CONVOLUTION:
        /* the letters form names every dimension once; anything else
         * (invalid: the verifier must see it) has no pretty form, and
         * without its attributes nothing can be said of it but the generic form */
        return a->conv && op->n_operands == 2 &&
               conv_list_ok(a->conv->in_batch, a->conv->in_feature, a->conv->in_spatial, a->conv->n_spatial) &&
               conv_list_ok(a->conv->k_in_feature, a->conv->k_out_feature, a->conv->k_spatial, a->conv->n_spatial) &&
               conv_list_ok(a->conv->out_batch, a->conv->out_feature, a->conv->out_spatial, a->conv->n_spatial);
    case PLUMB_OP_CONCATENATE:
    case PLUMB_OP_GET_DIMENSION_SIZE:
    case PLUMB_OP_DYNAMIC_IOTA:
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
        return op->n_operands > 0;    /* `concatenate , dim = 0` would not parse */
    case PLUMB_OP_SCAN:
        /* the inits list and one body with its block header */
        return op->n_regions == 1 && op->a.n_inits <= op->n_operands && op->a.n_inits <= op->n_results;
    case PLUMB_OP_WHILE:
        /* one list of names and types for operands, both regions' arguments
         * and the results */
        if (op->n_regions != 2 || op->n_results != op->n_operands || op->regions[0].n_args != op->n_operands ||
            op->regions[1].n_args != op->n_operands)
            return false;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (!ir_type_equal(&op->operands[i]->type, &op->results[i]->type) ||
                !ir_type_equal(&op->operands[i]->type, &op->regions[0].args[i]->type) ||
                !ir_type_equal(&op->operands[i]->type, &op->regions[1].args[i]->type))
                return false;
        return true;
    case PLUMB_OP_TUPLE:
        /* the pretty form writes the result type only: its elements must
         * be the operands' types */
        if (op->n_results != 1 || !op->results[0]->type.tuple || op->results[0]->type.tuple->n != op->n_operands)
            return false;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (!ir_type_equal(&op->operands[i]->type, &op->results[0]->type.tuple->elems[i]))
                return false;
        return true;
    case PLUMB_OP_GET_TUPLE_ELEMENT:
        return op->n_operands == 1 && op->n_results == 1;
    case PLUMB_OP_OPTIMIZATION_BARRIER:
        /* the pretty form lists each type once, for operand and result */
        if (op->n_results != op->n_operands)
            return false;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (!ir_type_equal(&op->operands[i]->type, &op->results[i]->type))
                return false;
        return true;
    case PLUMB_OP_CONSTANT: {
        /* the pretty form's one type is both the literal's and the result's */
        if (!a->value || op->n_results != 1)
            return false;
        const ir_type *rt = &op->results[0]->type;
        if (rt->dtype != a->value->dtype || rt->rank != a->value->rank)
            return false;
        for (uint32_t i = 0; i < rt->rank; i++)
            if (rt->dims[i] != a->value->dims[i] || rt->bounds[i] != PLUMB_NO_BOUND)
                return false;
        return true;
    }
    default:
        return true;
    }
}

static void print_op(pr *q, const ir_op *op, int ind)
{
    const ir_attrs *a = &op->a;
    indent(q, ind);
    if (op->n_results) {
        uint32_t k = op->results[0] && op->results[0]->id < q->cap ? q->num[op->results[0]->id] : 0;
        if (k && !(k & ARG_FLAG))
            plumb_buf_printf(q->b, "%%%u", k - 1);
        else
            puts_(q, "%<unnamed>");
        if (op->n_results > 1)
            plumb_buf_printf(q->b, ":%u", op->n_results);
        puts_(q, " = ");
    }
    const plumb_op_info *info = plumb_op_get(op->code);
    if (!pretty_fits(op)) {
        print_generic(q, op, ind);
        debug_loc(q, &op->dloc);
        puts_(q, "\n");
        return;
    }
    if (info->syntax == PLUMB_SYN_EW) {
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        extra_dict(q, a);
        sig_ew(q, op);
        debug_loc(q, &op->dloc);
        puts_(q, "\n");
        return;
    }
    switch (op->code) {
    case PLUMB_OP_REDUCE_PRECISION:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", format = e%dm%d", (int)a->exponent_bits, (int)a->mantissa_bits);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    /* StableHLO's form: `%a, type = FFT, length = [4] : (T) -> U`, always functional */
    case PLUMB_OP_FFT:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", type = %s, length = ", ir_fft_type_name(a->fft_type));
        ints(q, a->fft_length);
        extra_dict(q, a);
        sig_functional(q, op);
        break;
    case PLUMB_OP_CHOLESKY:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        if (a->lower)
            puts_(q, ", lower = true");
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_COMPARE:
        plumb_buf_printf(q->b, "%s %s, ", info->name, cmp_dir_name(a->cmp_dir));
        values(q, op->operands, op->n_operands);
        if (a->cmp_type != IR_CMP_TYPE_NONE)
            plumb_buf_printf(q->b, ", %s", cmp_type_name(a->cmp_type));
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_CONSTANT:
        puts_(q, info->name);
        extra_dict(q, a);
        puts_(q, " ");
        if (a->value)
            plumb_dense_print(q->b, a->value, false);
        else
            puts_(q, "dense<>");
        puts_(q, " : ");
        result_types(q, op);
        break;
    case PLUMB_OP_IOTA:
        plumb_buf_printf(q->b, "%s dim = %lld", info->name, (long long)a->dimension);
        extra_dict(q, a);
        puts_(q, " : ");
        result_types(q, op);
        break;
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_REVERSE:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, ", dims = ");
        ints(q, a->dims);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_SLICE:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, " [");
        for (uint32_t i = 0; i < a->start.n && i < a->limit.n; i++) {
            plumb_buf_printf(q->b, "%s%lld:%lld", i ? ", " : "", (long long)a->start.v[i], (long long)a->limit.v[i]);
            if (i < a->strides.n && a->strides.v[i] != 1)
                plumb_buf_printf(q->b, ":%lld", (long long)a->strides.v[i]);
        }
        puts_(q, "]");
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_DYNAMIC_SLICE:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, ", sizes = ");
        ints(q, a->sizes);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_CONCATENATE:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", dim = %lld", (long long)a->dimension);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_PAD:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, ", low = ");
        ints(q, a->low);
        puts_(q, ", high = ");
        ints(q, a->high);
        puts_(q, ", interior = ");
        ints(q, a->interior);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_REDUCE:
        print_reduce(q, op, ind);
        break;
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_DOT:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        if (op->code == PLUMB_OP_DOT_GENERAL) {
            if (a->lhs_batch.n || a->rhs_batch.n) {
                puts_(q, ", batching_dims = ");
                ints(q, a->lhs_batch);
                puts_(q, " x ");
                ints(q, a->rhs_batch);
            }
            puts_(q, ", contracting_dims = ");
            ints(q, a->lhs_contract);
            puts_(q, " x ");
            ints(q, a->rhs_contract);
        }
        if (a->has_precision)
            plumb_buf_printf(q->b, ", precision = [%s, %s]", precision_name(a->precision[0]), precision_name(a->precision[1]));
        if (op->code == PLUMB_OP_DOT_GENERAL && a->algorithm.present) {
            /* StableHLO's pretty form: every field, in its order */
            const ir_dot_algorithm *g = &a->algorithm;
            plumb_buf_printf(q->b, ", algorithm = <lhs_precision_type = %s, rhs_precision_type = %s, "
                             "accumulation_type = %s, lhs_component_count = %lld, rhs_component_count = %lld, "
                             "num_primitive_operations = %lld, allow_imprecise_accumulation = %s>",
                             ir_dotalg_type_name(g->lhs_precision_type), ir_dotalg_type_name(g->rhs_precision_type),
                             ir_dotalg_type_name(g->accumulation_type), (long long)g->lhs_component_count,
                             (long long)g->rhs_component_count, (long long)g->num_primitive_operations,
                             g->allow_imprecise_accumulation ? "true" : "false");
        }
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_CONVOLUTION:
        print_conv(q, op);
        break;
    case PLUMB_OP_TOP_K:
        plumb_buf_printf(q->b, "%s(", info->name);
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", k = %lld)", (long long)a->k);
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_RNG_BIT_GENERATOR:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", algorithm = %s", rng_name(a->rng_alg));
        extra_dict(q, a);
        sig_ew(q, op);
        break;
    case PLUMB_OP_COMPOSITE: {
        /* StableHLO's order: the name, the operands, then the attributes
         * alphabetically (composite_attributes, decomposition, version, and
         * anything else kept verbatim after them) */
        const ir_named_attr *nm = composite_extra(a, "name"), *ca = composite_extra(a, "composite_attributes");
        puts_(q, info->name);
        puts_(q, " ");
        puts_(q, nm->text);
        if (op->n_operands)
            puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, " {");
        if (ca)
            plumb_buf_printf(q->b, "composite_attributes = %s, ", ca->text);
        puts_(q, "decomposition = ");
        symbol(q, a->callee);
        for (uint32_t i = 0; i < a->n_extra; i++) {
            if (&a->extra[i] == nm || &a->extra[i] == ca)
                continue;
            puts_(q, ", ");
            if (is_bare_id(a->extra[i].name))
                puts_(q, a->extra[i].name);
            else
                plumb_buf_printf(q->b, "\"%s\"", a->extra[i].name);
            if (a->extra[i].text && a->extra[i].text[0])
                plumb_buf_printf(q->b, " = %s", a->extra[i].text);
        }
        puts_(q, "}");
        sig_functional(q, op);
        break;
    }
    case PLUMB_OP_CALL:
        puts_(q, "call ");
        symbol(q, a->callee);
        puts_(q, "(");
        values(q, op->operands, op->n_operands);
        puts_(q, ")");
        extra_dict(q, a);
        sig_functional(q, op);
        break;
    case PLUMB_OP_SCAN: {
        /* ChloOps.td's form: `(%in, ...) inits(%init, ...) dimension=N
         * attributes {...} { ^bb0(...): ... } : (T, ...) -> (R, ...)` */
        uint32_t n_in = op->n_operands - a->n_inits;
        const ir_block *blk = &op->regions[0];
        puts_(q, info->name);
        puts_(q, "(");
        values(q, op->operands, n_in);
        puts_(q, ") inits(");
        values(q, op->operands + n_in, a->n_inits);
        plumb_buf_printf(q->b, ") dimension=%lld", (long long)a->dimension);
        if (a->is_reverse || a->has_is_associative || a->n_extra) {
            bool first = true;
            puts_(q, " attributes {");
            if (a->has_is_associative) {
                plumb_buf_printf(q->b, "is_associative = %s", a->is_associative ? "true" : "false");
                first = false;
            }
            if (a->is_reverse) {
                puts_(q, first ? "is_reverse = true" : ", is_reverse = true");
                first = false;
            }
            extra_entries(q, a, first);
            puts_(q, "}");
        }
        puts_(q, " ");
        region_body(q, blk, ind);
        sig_functional(q, op);
        break;
    }
    case PLUMB_OP_WHILE: {
        /* StableHLO's form: `(%iter = %init, ...) : T, ... cond {...} do
         * {...}`, both regions without block headers, their arguments
         * named by the header; the body's take the cond's names. */
        const ir_block *cb = &op->regions[0], *bb = &op->regions[1];
        for (uint32_t i = 0; i < bb->n_args; i++)
            if (bb->args[i]->id < q->cap && cb->args[i]->id < q->cap)
                q->num[bb->args[i]->id] = q->num[cb->args[i]->id];
        puts_(q, info->name);
        puts_(q, "(");
        for (uint32_t i = 0; i < op->n_operands; i++) {
            if (i)
                puts_(q, ", ");
            value(q, cb->args[i]);
            puts_(q, " = ");
            value(q, op->operands[i]);
        }
        puts_(q, ")");
        extra_dict(q, a);
        if (op->n_operands) {
            puts_(q, " : ");
            for (uint32_t i = 0; i < op->n_operands; i++) {
                if (i)
                    puts_(q, ", ");
                type(q, &op->operands[i]->type);
            }
        }
        puts_(q, "\n");
        indent(q, ind);
        puts_(q, "cond {\n");
        print_ops(q, cb, ind + 2);
        indent(q, ind);
        puts_(q, "} do {\n");
        print_ops(q, bb, ind + 2);
        indent(q, ind);
        puts_(q, "}");
        break;
    }
    /* StableHLO's forms (docs/spec/tuple.md): `stablehlo.tuple %a, %b : T`
     * and `stablehlo.get_tuple_element %t[1] : (T) -> U` */
    case PLUMB_OP_TUPLE:
        puts_(q, info->name);
        if (op->n_operands) {
            puts_(q, " ");
            values(q, op->operands, op->n_operands);
        }
        extra_dict(q, a);
        puts_(q, " : ");
        type(q, &op->results[0]->type);
        break;
    case PLUMB_OP_GET_TUPLE_ELEMENT:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, "[%lld]", (long long)a->tuple_index);
        extra_dict(q, a);
        sig_functional(q, op);
        break;
    case PLUMB_OP_OPTIMIZATION_BARRIER:
        /* StableHLO's form: the attribute dictionary first, then each
         * operand's type once (the results have the same types). */
        puts_(q, info->name);
        extra_dict(q, a);
        if (!op->n_operands) {
            puts_(q, " ()");
            break;
        }
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, " : ");
        for (uint32_t i = 0; i < op->n_operands; i++) {
            if (i)
                puts_(q, ", ");
            type(q, &op->operands[i]->type);
        }
        break;
    case PLUMB_OP_FUNC_RETURN:
    case PLUMB_OP_RETURN:
        puts_(q, op->code == PLUMB_OP_RETURN ? "stablehlo.return" : "return");
        if (op->n_operands) {
            puts_(q, " ");
            values(q, op->operands, op->n_operands);
        }
        extra_dict(q, a);
        if (op->n_operands) {
            puts_(q, " : ");
            for (uint32_t i = 0; i < op->n_operands; i++) {
                if (i)
                    puts_(q, ", ");
                type(q, &op->operands[i]->type);
            }
        }
        break;
    case PLUMB_OP_EXPECT_EQ:
    case PLUMB_OP_EXPECT_EQ_CONST:
    case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST:
    case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        print_check(q, op);
        break;
    case PLUMB_OP_SHAPE_ASSERTION:
        print_shape_assertion(q, op);
        break;
    case PLUMB_OP_GET_DIMENSION_SIZE:
    case PLUMB_OP_DYNAMIC_IOTA:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        plumb_buf_printf(q->b, ", dim = %lld", (long long)a->dimension);
        extra_dict(q, a);
        sig_functional(q, op);
        break;
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        puts_(q, ", dims = ");
        ints(q, a->dims);
        dyn_broadcast_dict(q, a);
        sig_functional(q, op);
        break;
    case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD:
        puts_(q, info->name);
        puts_(q, " ");
        values(q, op->operands, op->n_operands);
        extra_dict(q, a);
        sig_functional(q, op);
        break;
    default:
        print_generic(q, op, ind);
        break;
    }
    debug_loc(q, &op->dloc);
    puts_(q, "\n");
}

/* ---- functions and modules ------------------------------------------------------ */

static void print_func(pr *q, const ir_func *f, int ind)
{
    q->next_arg = q->next_res = 0;
    name_block(q, &f->body);
    indent(q, ind);
    puts_(q, f->is_public ? "func.func " : "func.func private ");
    symbol(q, f->name);
    puts_(q, "(");
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        if (i)
            puts_(q, ", ");
        value(q, f->body.args[i]);
        puts_(q, ": ");
        type(q, &f->body.args[i]->type);
        if (f->arg_attrs && f->arg_attrs[i]) {
            puts_(q, " ");
            puts_(q, f->arg_attrs[i]);
        }
        debug_loc(q, f->body.args[i]->dloc);
    }
    puts_(q, ")");
    bool any_attr = false;
    for (uint32_t i = 0; i < f->n_results; i++)
        if (f->result_attrs && f->result_attrs[i])
            any_attr = true;
    if (f->n_results == 1 && !any_attr) {
        puts_(q, " -> ");
        type(q, &f->result_types[0]);
    } else if (f->n_results) {
        puts_(q, " -> (");
        for (uint32_t i = 0; i < f->n_results; i++) {
            if (i)
                puts_(q, ", ");
            type(q, &f->result_types[i]);
            if (f->result_attrs && f->result_attrs[i]) {
                puts_(q, " ");
                puts_(q, f->result_attrs[i]);
            }
        }
        puts_(q, ")");
    }
    puts_(q, " {\n");
    print_ops(q, &f->body, ind + 2);
    indent(q, ind);
    puts_(q, "}");
    debug_loc(q, &f->dloc);
    puts_(q, "\n");
}

void ir_print(plumb_buf *b, const ir_module *m)
{
    pr q;
    if (!m || !pr_init(&q, b, m->next_value_id))
        return;
    int ind = 0;
    if (m->name || m->attrs) {
        puts_(&q, "module");
        if (m->name) {
            puts_(&q, " ");
            symbol(&q, m->name);
        }
        if (m->attrs) {
            puts_(&q, " attributes ");
            puts_(&q, m->attrs);
        }
        puts_(&q, " {\n");
        ind = 2;
    }
    /* a module location needs the module to hang on */
    if (!ind && ir_debug_loc_known(&m->dloc)) {
        puts_(&q, "module {\n");
        ind = 2;
    }
    for (uint32_t i = 0; i < m->n_funcs; i++)
        print_func(&q, m->funcs[i], ind);
    if (ind) {
        puts_(&q, "}");
        debug_loc(&q, &m->dloc);
        puts_(&q, "\n");
    }
    pr_free(&q);
}

void ir_print_op(plumb_buf *b, const ir_op *op, int indent_spaces)
{
    if (!op)
        return;
    /* Number values as ir_print would: from the top of the enclosing
     * function body (or from op itself when it is not in a block). */
    const ir_block *top = op->parent;
    while (top && top->parent && top->parent->parent)
        top = top->parent->parent;
    uint32_t cap = top ? max_id_block(top) : max_id_op(op);
    pr q;
    if (!pr_init(&q, b, cap))
        return;
    if (top)
        name_block(&q, top);
    else
        name_op(&q, op);
    print_op(&q, op, indent_spaces < 0 ? 0 : indent_spaces);
    pr_free(&q);
}
