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

/* The pages written to path (cli_write_atomic: never through a link);
 * false with d set when out of memory or the file cannot be written. */
bool cli_golden_html_write(const char *path, const char *spec, const conf_backend *b, const char *suite, bool partial,
                           bool ok, const golden_result *rs, uint32_t n, plumb_diag *d);
bool cli_fuzz_html_write(const char *path, const fz_options *o, const fz_result *res, plumb_diag *d);

#endif
