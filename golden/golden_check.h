/* Checking a backend against the goldens and the drift ratchet
 * (golden/check.c, `plumb golden check|ratchet`, docs/golden.md). */
#ifndef PLUMB_GOLDEN_CHECK_H
#define PLUMB_GOLDEN_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/golden.h"
#include "../conformance/certify.h"

typedef struct golden_result {
    char file[96];
    plumb_opcode op;
    plumb_dtype dtype;
    plumb_golden_kind kind;
    uint32_t length;
    char attr[PLUMB_GOLDEN_ATTR_MAX];   /* the entry's attribute, "" for none */
    bool skipped;               /* the backend does not claim the op for the type */
    bool errored;               /* the backend failed to run it (error holds why) */
    uint32_t cases, passed, failed;
    double worst, p50, p90, p99; /* budget used: error / bound (0 exact; > 1 fails) */
    /* The distribution of budget used over the file's records (conf.h's
     * bins and quantiles; worst..p99 above are its figures). */
    conf_budget_hist hist;
    /* Every record's budget used, ascending (cases entries, plumb_calloc'ed;
     * NULL when skipped): what per op x type histograms over several files
     * are built from. Freed by golden_result_free. */
    double *budgets;
    char failure[800];          /* the worst failing case: inputs, got, want, error, bound */
    char error[1100];
} golden_result;

void golden_result_free(golden_result *r);

/* The budget-used histogram of op in type t with attribute attr ("" for
 * none: a reduce's add body) over every checked file of rs (several files
 * for sums and dots: one per length). False when out of memory; h->n is 0
 * when no such file was checked. */
bool golden_op_hist(const golden_result *rs, uint32_t n, plumb_opcode op, plumb_dtype t, const char *attr,
                    conf_budget_hist *h);

/* Checks the backend (opened with conf_backend_open; spec is what was
 * opened) on one loaded file. False only when the check itself could not be
 * made (no memory); a backend error is r->errored. */
bool golden_check_file(conf_backend *b, const char *spec, const plumb_golden_file *f, const char *file,
                       golden_result *r, plumb_diag *d);

/* Baselines of the drift ratchet. */
typedef struct golden_baseline_entry {
    char file[96];
    double worst, p50, p90, p99;
} golden_baseline_entry;

typedef struct golden_baseline {
    char backend[64];
    char suite[32];
    golden_baseline_entry *v;
    uint32_t n;
} golden_baseline;

/* The suite name a manifest gives ("golden-v1-<crc>"). */
void golden_suite_name(const plumb_golden_manifest *m, char *buf, size_t cap);
bool golden_baseline_load(const char *path, golden_baseline *bl, plumb_diag *d);
void golden_baseline_free(golden_baseline *bl);
/* The baseline JSON text of a run (every result that was checked). */
char *golden_baseline_text(const char *backend, const char *suite, const golden_result *rs, uint32_t n, size_t *len);

#endif
