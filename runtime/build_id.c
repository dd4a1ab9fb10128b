/* The runtime's build identity, generated at build time from its sources and
 * compiler flags (Makefile: $(BUILD)/gen/rt_build_id.h, tools/gen_build_id.sh).
 * It replaces a hand-kept version string that nobody bumped: a build whose
 * passes or kernels differ now differs here by construction, and the disk
 * cache rejects entries written under another identity. */
#include "rt_pipeline.h"
#include "rt_build_id.h"

const char rt_runtime_version[32] = "plumb-rt " RT_BUILD_HASH;
const uint8_t rt_build_secret[16] = RT_BUILD_SECRET;
