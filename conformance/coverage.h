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

#endif
