/* Per-entry recompile summary (summary.c): a histogram of the causes of an
 * entry's recompiles, printed on the runtime's log when it is destroyed,
 * and a warning when recompiles come too often. */
#ifndef PLUMB_RT_SUMMARY_H
#define PLUMB_RT_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/runtime.h"

#define RT_SUMMARY_CAUSES 16     /* distinct causes kept; the rest are counted as other */
#define RT_FREQUENT_COMPILES 3   /* this many recompiles ... */
#define RT_FREQUENT_RUNS 10      /* ... within this many runs of the entry is "too frequent" */

typedef struct rt_cause {
    char cls[32];                /* explanation class, e.g. baked_constant */
    long node;                   /* -1 when none */
    char name[64];               /* value name (%lr), may be empty */
    char from[96];               /* front-end location (train.py:41:10) or file:line, may be empty */
    uint32_t count;
} rt_cause;

typedef struct rt_summary {
    rt_cause c[RT_SUMMARY_CAUSES];
    uint32_t n;
    uint32_t other;              /* recompiles whose cause did not fit */
    uint64_t at_run[RT_FREQUENT_COMPILES];   /* the entry's run count at its last recompiles (ring) */
    uint32_t n_at;
    bool warned;
} rt_summary;

/* Counts one recompile whose explanation is the JSON object `json` (the
 * first difference's class, node, name and origin are the cause), made
 * after `runs` runs of the entry; warns once on log (when not NULL) when it
 * is the RT_FREQUENT_COMPILES-th within RT_FREQUENT_RUNS runs. */
void rt_summary_note(rt_summary *s, const char *json, uint64_t runs, FILE *log, bool log_json, const char *module,
                     const char *entry);

/* One line (text, or a JSON object) for the entry: counters and causes,
 * the most frequent first: "20 programs: 19x baked_constant at node 2 (%lr,
 * train.py:41:10)". */
void rt_summary_print(FILE *log, bool log_json, const char *module, const char *entry, const rt_summary *s,
                      const plumb_runtime_stats *st);

#endif
