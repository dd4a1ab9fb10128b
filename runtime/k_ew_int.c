/* Vectorized elementwise loops for integer and i1 element types (see rt_ew_args in
 * rt_internal.h): the element engine offers each op here first. */
#include "rt_internal.h"

bool rt_ew_int(const rt_ew_args *a)
{
    (void)a;
    return false;   /* being written: everything still runs on the engine's per-element path */
}
