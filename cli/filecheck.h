/* What StableHLO's interpreter tests expect of their output, for plumb run:
 * the interpreter's result print format and LLVM FileCheck's matching of
 * CHECK lines (a documented subset, docs/testdata-coverage.md). */
#ifndef PLUMB_CLI_FILECHECK_H
#define PLUMB_CLI_FILECHECK_H

#include <stddef.h>

#include "plumb/core.h"
#include "plumb/tensor.h"

typedef enum cli_fc_verdict {
    CLI_FC_PASS,          /* every directive matched */
    CLI_FC_FAIL,          /* a directive did not match (why says which) */
    CLI_FC_UNSUPPORTED,   /* a directive or pattern plumb does not check */
    CLI_FC_NO_CHECKS,     /* no directive with this prefix */
} cli_fc_verdict;

/* Matches the directives PREFIX:, PREFIX-NEXT:, PREFIX-SAME:, PREFIX-NOT:
 * and PREFIX-EMPTY: found in checks (the test file) against input, with
 * FileCheck's default rules: substring patterns, runs of blanks in both
 * equal to one blank, each match searched after the previous one, NEXT on
 * the line after it, SAME on its line, NOT nowhere between the matches
 * around it. Patterns with {{regex}} or [[variables]], and the LABEL, DAG
 * and COUNT directives, are CLI_FC_UNSUPPORTED. why (why_size bytes) gets
 * the reason for every verdict but CLI_FC_PASS, naming the directive's
 * line in checks. */
cli_fc_verdict cli_filecheck(const char *checks, size_t checks_len, const char *prefix, const char *input,
                             size_t input_len, char *why, size_t why_size);

/* Appends t as stablehlo-translate --interpret prints a result (without
 * the trailing newline): its type, " {", then nested lists one per line
 * indented by two blanks per level, "}"; a scalar is "tensor<i32> {3}".
 * Integers in decimal, i1 as true/false, floats as MLIR prints a float
 * attribute: 6 significant digits in d.dddddde+XX form when that reads
 * back to the same value, else the type's natural precision, else (and for
 * infinities and NaNs) the bit pattern in hexadecimal. */
void cli_interp_print(plumb_buf *b, const plumb_tensor *t);

/* Appends t as stablehlo-translate --interpret --interpreter-print-dense
 * prints a result: the DenseElementsAttr "dense<...> : TYPE", elements as
 * in cli_interp_print but a complex one as "(re,im)", nested lists without
 * line breaks, "dense<v>" when every element is the same (a splat),
 * "dense<>" when there is none. */
void cli_interp_print_dense(plumb_buf *b, const plumb_tensor *t);

/* Appends t as the interpreter's first driver, stablehlo-interpreter,
 * printed a result (the older interpreter tests check it with FileCheck):
 * its type and " {", then one line per element, indented by two blanks,
 * each element an attribute with its type, `-8 : i4`, `6.28318548 : f32`,
 * `0x7FC00000 : f32` (digits as in cli_interp_print), i1 as true/false, a
 * complex element as the list of its typed parts `[3.000000e+00 : f64,
 * 5.000000e+00 : f64]`; no closing line (the next result's type line is
 * the line after the last element), no trailing newline. That driver's
 * versions differed (the brace came later; one version left out the f64 of
 * complex parts): the brace is kept, since a type line without it is a
 * substring of this one, and the typed parts are those of most of the
 * tests seen (docs/testdata-coverage.md, seventh sweep). */
void cli_interp_print_legacy(plumb_buf *b, const plumb_tensor *t);


/* ---- RUN lines ----------------------------------------------------------------
 * How upstream runs a test file: its '// RUN:' commands (a trailing '\'
 * continues one on the next RUN: line). plumb runs the ones of the form
 *   [not] stablehlo-translate [--interpret] [-split-input-file] [--args="[...]"]
 *       [--interpreter-print-dense]
 * (stablehlo-interpreter --interpret, the first name of the driver, too)
 * (--args=@%t.NAME taking the text an earlier 'echo "TEXT" > %t.NAME' line
 * wrote), and says why it does not run any other.
 *       [%s] [2>&1] [| FileCheck %s [--check-prefix(es)=PREFIX]]
 * and says why it does not run any other. */
typedef struct cli_run_line {
    unsigned line;            /* the RUN: line in the file (its first) */
    bool asks;                /* it passes --args, pipes into FileCheck or expects
                                 a failure (even when plumb cannot run it) */
    bool expect_error;        /* 'not': upstream expects the command to fail */
    bool split;               /* -split-input-file */
    bool filecheck;           /* piped into FileCheck %s */
    bool print_dense;         /* --interpreter-print-dense */
    bool legacy_print;        /* run by stablehlo-interpreter, the first driver:
                                 its print format (cli_interp_print_legacy),
                                 each function's results after the line
                                 "Evaluated results of function: NAME" */
    char prefix[64];          /* FileCheck's check prefix (default CHECK) */
    char *args;               /* --args value (quotes removed), or NULL */
    char args_file[128];      /* --args=@%t.NAME...: the value after '@' (a file an
                                 earlier RUN line wrote), or "" */
    char echo_file[64];       /* 'echo TEXT > %t.NAME': the file it writes, or "" */
    char *echo_text;          /* and TEXT (quotes removed) */
    char unsupported[256];    /* why plumb does not run it; "" when it does */
} cli_run_line;

/* Every RUN command of text, in order; *n gets their count. NULL with *n = 0
 * when there is none (or no memory). Free with cli_run_lines_free. */
cli_run_line *cli_run_lines(const char *text, size_t len, size_t *n);
void cli_run_lines_free(cli_run_line *l, size_t n);

/* Splits an --args list "[a, b, ...]" at its top-level commas (commas
 * inside <>, [], () or quotes belong to an element): starts[i], lens[i]
 * (blanks trimmed) for up to max elements; returns the element count, or
 * -1 when args is not a bracketed list or an element is empty. */
int cli_args_split(const char *args, const char **starts, size_t *lens, int max);

#endif
