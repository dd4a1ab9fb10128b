/* The coverage report of a certification run (conformance/report.c,
 * `plumb certify --coverage`, docs/certify.md "Coverage"): the matrix op ×
 * element type × value class × shape class × attribute form that the run's
 * cases exercised, derived from their ids, and the attribute forms the
 * manifest promises (conf_manifest_forms) that no case of the run covered. */
#ifndef PLUMB_CONF_COVERAGE_H
#define PLUMB_CONF_COVERAGE_H

#include "certify.h"

/* Appends the coverage section: one line per cell with its case count, then
 * "coverage: N cells over N cases; N attribute forms promised, N exercised,
 * N missing" and a line per missing form. */
void conf_report_coverage_text(plumb_buf *b, const conf_run *run);
/* conf_report_json with a "coverage" member when coverage is true. */
void conf_report_json_coverage(plumb_buf *b, const conf_run *run, bool coverage);
/* The promised forms of the run's ops and claimed types that no case of
 * the run exercised. */
uint32_t conf_coverage_missing(const conf_run *run);

/* ---- type coverage (conformance/typecov.c, `plumb certify --type-coverage`) ----
 * For every op and every element type the verifier accepts for it (the
 * table `plumb ops` prints: the row's types and ir_lowp_accepts), the
 * number of cases conf_generate makes in each suite; a convert case counts
 * for its source and its target type. */
#include "conf.h"

typedef struct conf_typecov {
    bool selected[PLUMB_OP_COUNT];
    uint32_t cases[PLUMB_OP_COUNT][PLUMB_DTYPE_COUNT][2];   /* [op][type][0 quick, 1 full] */
} conf_typecov;

typedef struct conf_typecov_totals {
    uint32_t pairs;            /* accepted op x type pairs of the selected ops */
    uint32_t covered;          /* ... with at least one full-suite case */
    uint32_t holes;            /* ... of an op with cases, with none of this type */
    uint32_t no_cases_of_own;  /* ... of ops conf_op_generated leaves out (structure, checks) */
    uint32_t unaccepted;       /* pairs with cases the verifier does not accept */
} conf_typecov_totals;

/* Whether the verifier accepts op on element type t. */
bool conf_typecov_accepts(plumb_opcode op, plumb_dtype t);
/* The types issue 20 added: FP8/FP6/FP4/E8M0, i2/i4/ui2/ui4, complex. */
bool conf_typecov_new_type(plumb_dtype t);
/* Generates every selected op's cases (ops NULL: all) in both suites and
 * counts them per type. */
bool conf_typecov_build(const bool *ops, uint64_t seed, conf_typecov *out, plumb_diag *d);
void conf_typecov_summary(const conf_typecov *c, bool new_only, conf_typecov_totals *s);
/* One line per pair "op type quick full status" (status covered,
 * full-only, hole, no-cases-of-own, not-accepted), then the summary line
 * "type coverage: N op x type pairs accepted, N with cases, N holes, ...". */
void conf_typecov_text(plumb_buf *b, const conf_typecov *c, bool new_only);
/* {"pairs", "covered", "holes", "no_cases_of_own", "not_accepted",
 *  "cells": [{"op", "type", "new_type", "quick", "full", "status"}]} */
void conf_typecov_json(plumb_buf *b, const conf_typecov *c, bool new_only);

#endif
