/* plumb ops: the op table of ir/ops.def as a text table, JSON or the
 * Markdown of docs/ops.md. */
#include <string.h>

#include "plumb/complex.h"
#include "plumb/lowp.h"
#include "cli.h"
#include "plumb/ops.h"

static const char ops_help[] =
    "usage: plumb ops [--json | --markdown]\n"
    "\n"
    "Lists every op of the op table (ir/ops.def): operand and result counts\n"
    "('variadic' when any number), kind, the element types accepted for the\n"
    "primary operand, the agreement class a backend's result must meet\n"
    "(exact, ulp or bound(data)) and, for the ulp class, the default bound in\n"
    "ULPs for f32/f64 results and for f16/bf16 results.\n"
    "\n"
    "options:\n"
    "      --json       a JSON array, one object per op\n"
    "      --markdown   the Markdown of docs/ops.md (make docs writes it)\n"
    "  -h, --help       show this help\n"
    "\n" CLI_EXIT_CODES_HELP;

enum { OPT_HELP = 1, OPT_JSON, OPT_MARKDOWN };

static const cli_opt ops_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"json", 0, false, OPT_JSON},
    {"markdown", 0, false, OPT_MARKDOWN},
    {NULL, 0, false, 0},
};

enum { COL_NAME, COL_ARITY, COL_RESULTS, COL_KIND, COL_TYPES, COL_AGREE, COL_ULP, COL_ULP_HALF, N_COLS };

static const char *const col_titles[N_COLS] = {
    "op", "operands", "results", "kind", "element types", "agreement", "ulp f32/f64", "ulp f16/bf16",
};

/* The element types op i takes for its primary operand: its row's, the
 * small types it runs on without the row naming them (ir/lowp.c) and the
 * complex types (ir/complex.c). Text, Markdown and JSON list the same. */
static bool op_lists_type(int i, plumb_dtype t)
{
    const plumb_op_info *op = &plumb_op_table[i];
    if (op->types & PLUMB_TY_BIT(t))
        return true;
    if (plumb_dtype_is_complex(t))
        return ir_complex_accepts((plumb_opcode)i);
    return ir_lowp_accepts((plumb_opcode)i, t);
}

/* Writes the cells of row i (one NUL-terminated string each) into b,
 * recording where each starts. */
static void row_cells(plumb_buf *b, int i, size_t start[N_COLS])
{
    const plumb_op_info *op = &plumb_op_table[i];
    start[COL_NAME] = b->len;
    plumb_buf_append(b, op->name, strlen(op->name) + 1);
    start[COL_ARITY] = b->len;
    if (op->arity == PLUMB_VAR)
        plumb_buf_puts(b, "variadic");
    else
        plumb_buf_printf(b, "%d", op->arity);
    plumb_buf_append(b, "", 1);
    start[COL_RESULTS] = b->len;
    if (op->results == PLUMB_VAR)
        plumb_buf_puts(b, "variadic");
    else
        plumb_buf_printf(b, "%d", op->results);
    plumb_buf_append(b, "", 1);
    start[COL_KIND] = b->len;
    plumb_buf_puts(b, plumb_kind_name(op->kind));
    plumb_buf_append(b, "", 1);
    start[COL_TYPES] = b->len;
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!op_lists_type(i, (plumb_dtype)t))
            continue;
        plumb_buf_printf(b, "%s%s", first ? "" : ", ", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
    plumb_buf_append(b, "", 1);
    start[COL_AGREE] = b->len;
    plumb_buf_puts(b, plumb_agree_name(op->agree));
    plumb_buf_append(b, "", 1);
    start[COL_ULP] = b->len;
    if (op->agree == PLUMB_AGREE_ULP)
        plumb_buf_printf(b, "%u", op->ulp);
    else
        plumb_buf_puts(b, "-");
    plumb_buf_append(b, "", 1);
    start[COL_ULP_HALF] = b->len;
    if (op->agree == PLUMB_AGREE_ULP)
        plumb_buf_printf(b, "%u", op->ulp_half);
    else
        plumb_buf_puts(b, "-");
    plumb_buf_append(b, "", 1);
}

/* All cells of all rows in one buffer; cell(r, c) = data + at[r][c]. */
typedef struct ops_cells {
    plumb_buf b;
    size_t at[PLUMB_OP_COUNT][N_COLS];
} ops_cells;

static const char *cell(const ops_cells *c, int r, int col)
{
    return c->b.data + c->at[r][col];
}

static void print_text(plumb_buf *out, const ops_cells *c)
{
    size_t width[N_COLS];
    for (int k = 0; k < N_COLS; k++)
        width[k] = strlen(col_titles[k]);
    for (int r = 0; r < PLUMB_OP_COUNT; r++)
        for (int k = 0; k < N_COLS; k++)
            if (strlen(cell(c, r, k)) > width[k])
                width[k] = strlen(cell(c, r, k));
    for (int r = -1; r < PLUMB_OP_COUNT; r++) {
        for (int k = 0; k < N_COLS; k++) {
            const char *s = r < 0 ? col_titles[k] : cell(c, r, k);
            if (k == N_COLS - 1)
                plumb_buf_printf(out, "%s\n", s);
            else
                plumb_buf_printf(out, "%-*s  ", (int)width[k], s);
        }
    }
}

static void json_count(plumb_buf *out, int n)
{
    if (n == PLUMB_VAR)
        plumb_buf_puts(out, "null");
    else
        plumb_buf_printf(out, "%d", n);
}

/* One object per line so that line-oriented tools can count and grep rows. */
static void print_json(plumb_buf *out)
{
    plumb_buf_puts(out, "[\n");
    for (int r = 0; r < PLUMB_OP_COUNT; r++) {
        const plumb_op_info *op = &plumb_op_table[r];
        plumb_buf_puts(out, "  {\"name\": ");
        plumb_json_str_append(out, op->name);
        plumb_buf_puts(out, ", \"operands\": ");
        json_count(out, op->arity);
        plumb_buf_puts(out, ", \"results\": ");
        json_count(out, op->results);
        plumb_buf_puts(out, ", \"kind\": ");
        plumb_json_str_append(out, plumb_kind_name(op->kind));
        plumb_buf_puts(out, ", \"types\": [");
        bool first = true;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!op_lists_type(r, (plumb_dtype)t))
                continue;
            if (!first)
                plumb_buf_puts(out, ", ");
            plumb_json_str_append(out, plumb_dtype_name((plumb_dtype)t));
            first = false;
        }
        plumb_buf_puts(out, "], \"agreement\": ");
        plumb_json_str_append(out, plumb_agree_name(op->agree));
        if (op->agree == PLUMB_AGREE_ULP)
            plumb_buf_printf(out, ", \"ulp\": %u, \"ulp_half\": %u}", op->ulp, op->ulp_half);
        else
            plumb_buf_puts(out, ", \"ulp\": null, \"ulp_half\": null}");
        plumb_buf_puts(out, r + 1 < PLUMB_OP_COUNT ? ",\n" : "\n");
    }
    plumb_buf_puts(out, "]\n");
}

static void md_cell(plumb_buf *out, const char *s, bool code)
{
    plumb_buf_puts(out, code ? " `" : " ");
    for (; *s; s++) {
        if (*s == '|')
            plumb_buf_puts(out, "\\|");
        else
            plumb_buf_append(out, s, 1);
    }
    plumb_buf_puts(out, code ? "` |" : " |");
}

static void print_markdown(plumb_buf *out, const ops_cells *c)
{
    plumb_buf_puts(out,
        "# Op table\n"
        "\n"
        "This file is generated from `ir/ops.def` by `make docs` (which runs\n"
        "`plumb ops --markdown`); do not edit it by hand: `make check` fails when\n"
        "it is stale. One row per op of op sets v1 and v2: operand and result counts\n"
        "(\"variadic\" when any number), kind, the element types accepted for the\n"
        "primary operand, and the agreement class a backend's result must meet\n"
        "against the reference: *exact* (bit-identical), *ulp* (within the stated\n"
        "number of units in the last place of the correctly rounded result, for\n"
        "f32/f64 and for f16/bf16 results) or *bound(data)* (an error bound\n"
        "computed from the data, for results that depend on accumulation order).\n"
        "\n");
    plumb_buf_puts(out, "|");
    for (int k = 0; k < N_COLS; k++)
        md_cell(out, col_titles[k], false);
    plumb_buf_puts(out, "\n|");
    for (int k = 0; k < N_COLS; k++)
        plumb_buf_puts(out, k == COL_NAME || k == COL_KIND || k == COL_TYPES || k == COL_AGREE
                                ? "---|" : "--:|");
    plumb_buf_puts(out, "\n");
    for (int r = 0; r < PLUMB_OP_COUNT; r++) {
        plumb_buf_puts(out, "|");
        for (int k = 0; k < N_COLS; k++)
            md_cell(out, cell(c, r, k), k == COL_NAME);
        plumb_buf_puts(out, "\n");
    }
}

int cmd_ops(int argc, char **argv)
{
    const char *cmd = "ops";
    enum { TEXT, JSON, MARKDOWN } form = TEXT;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, ops_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(ops_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_JSON:
        case OPT_MARKDOWN:
            if (form != TEXT)
                return cli_usage_error(cmd, "--json and --markdown cannot be used together");
            form = id == OPT_JSON ? JSON : MARKDOWN;
            break;
        case CLI_OPERAND:
            return cli_usage_error(cmd, "unexpected argument '%s'", v);
        }
    }

    static ops_cells cells;   /* static: the offset table is ~5 KiB */
    plumb_buf_init(&cells.b);
    for (int r = 0; r < PLUMB_OP_COUNT; r++)
        row_cells(&cells.b, r, cells.at[r]);
    plumb_buf out;
    plumb_buf_init(&out);
    if (!cells.b.failed) {
        if (form == JSON)
            print_json(&out);
        else if (form == MARKDOWN)
            print_markdown(&out, &cells);
        else
            print_text(&out, &cells);
    }
    int rc = CLI_EXIT_OK;
    plumb_diag d = {.code = PLUMB_OK};
    if (cells.b.failed || out.failed) {
        fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
        rc = CLI_EXIT_USAGE;
    } else if (!cli_write_stdout(out.data, out.len, &d)) {
        cli_print_diag(cmd, &d);
        rc = CLI_EXIT_USAGE;
    }
    plumb_buf_free(&out);
    plumb_buf_free(&cells.b);
    return cli_finish(cmd, rc);
}
