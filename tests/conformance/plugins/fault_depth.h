/* Helpers of the planted faults that the depth families catch (crossed
 * classes, format boundaries, binades, conversion midpoints): each fault
 * file includes fault_common.h and then this. Elementwise faults apply only
 * where every input has the output's element count (a broadcast case's
 * input is smaller than its result). */
#ifndef PLUMB_TESTS_FAULT_DEPTH_H
#define PLUMB_TESTS_FAULT_DEPTH_H

#include <math.h>

static inline bool fd_same_numel(const plumb_backend_buffer *in, size_t n_in, const plumb_backend_buffer *out)
{
    for (size_t i = 0; i < n_in; i++)
        if (fault_numel(&in[i]) != fault_numel(out)) return false;
    return true;
}

/* The op is the program's only one of that name outside regions: text holds "<name> ". */
static inline bool fd_is(const char *text, const char *name)
{
    return strstr(text, name) != NULL;
}

static inline double fd_load(const plumb_backend_buffer *b, uint64_t i)
{
    return plumb_load_f64(fault_dtype(b), b->data, i);
}

static inline void fd_store_f32(const plumb_backend_buffer *b, uint64_t i, double v)
{
    plumb_store_bits(PLUMB_F32, b->data, i, plumb_f32_bits((float)v));
}

#endif
