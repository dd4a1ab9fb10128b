/* The HTML pages of plumb golden check and plumb fuzz (--html FILE),
 * written with the page frame, escaping and SVG charts of certification's
 * report (conformance/html.h), from the same results their JSON reports
 * are written from. */
#ifndef PLUMB_CLI_HTML_REPORTS_H
#define PLUMB_CLI_HTML_REPORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/core.h"
#include "../conformance/certify.h"
#include "../fuzz/fuzz.h"
#include "../golden/golden_check.h"

/* golden check (and ratchet's check): spec is the --backend given, b the
 * backend opened, suite the manifest's suite name, partial an --ops run,
 * ok the run's verdict, rs the n per-file results. */
void cli_golden_html(plumb_buf *out, const char *spec, const conf_backend *b, const char *suite, bool partial,
                     bool ok, const golden_result *rs, uint32_t n);

/* fuzz: the campaign's options and results. */
void cli_fuzz_html(plumb_buf *out, const fz_options *o, const fz_result *res);

/* plumb run --stats --html: one event per program run of a session, in
 * order (cli/run_session.c records them). */
typedef struct cli_run_event {
    uint32_t file;             /* index into the session's files */
    uint32_t run;              /* 0-based run number */
    bool compiled;             /* the runtime built a program (a memory-cache miss, not from disk) */
    bool recompiled;           /* ... for an entry that already had one */
    bool disk_hit;             /* served from the disk cache */
    char *explanation;         /* the recompile's explanation (plumb_malloc'ed, NUL included), or NULL */
} cli_run_event;

struct plumb_runtime;
/* The session's page: per module and entry the runtime's counters, a
 * compile timeline over the runs (compiles and recompiles marked), every
 * recompile's explanation, and the totals. files are the session's files. */
void cli_run_html(plumb_buf *out, const char *const *files, int n_files, const cli_run_event *ev, uint32_t n,
                  const struct plumb_runtime *rt);
/* Frees the explanations of n events. */
void cli_run_events_free(cli_run_event *ev, uint32_t n);

/* The pages written to path (cli_write_atomic: never through a link);
 * false with d set when out of memory or the file cannot be written. */
bool cli_golden_html_write(const char *path, const char *spec, const conf_backend *b, const char *suite, bool partial,
                           bool ok, const golden_result *rs, uint32_t n, plumb_diag *d);
bool cli_fuzz_html_write(const char *path, const fz_options *o, const fz_result *res, plumb_diag *d);
bool cli_run_html_write(const char *path, const char *const *files, int n_files, const cli_run_event *ev, uint32_t n,
                        const struct plumb_runtime *rt, plumb_diag *d);

#endif
