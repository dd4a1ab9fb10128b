/* Iotas a fused group generates where it reads them instead of reading a
 * materialized tensor (runtime/fusion_*.c; docs/runtime-passes.md,
 * "Iotas generated in groups"). For tests that check which path ran. */
#ifndef PLUMB_RT_IOTA_H
#define PLUMB_RT_IOTA_H

#include <stdint.h>

#include "rt_passes.h"

/* Iota values group g generates (0 for NULL or an unfused step). */
uint32_t rt_fused_iotas(const rt_fused *g);

/* Runs of fused groups with at least one generated iota, in this process. */
uint64_t rt_fused_iota_runs(void);

#endif
