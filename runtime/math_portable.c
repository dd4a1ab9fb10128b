/* Temporary: vector math being written. */
#include "rt_internal.h"

rt_vmath_f32_fn rt_vmath_f32(plumb_opcode op, plumb_isa isa)
{
    (void)op; (void)isa;
    return NULL;
}

rt_vmath2_f32_fn rt_vmath2_f32(plumb_opcode op, plumb_isa isa)
{
    (void)op; (void)isa;
    return NULL;
}
