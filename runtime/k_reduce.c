/* Temporary: kernels being written. */
#include "rt_internal.h"

bool rt_op_REDUCE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

float rt_sum_f32(const float *v, size_t n) { float s = 0; for (size_t i = 0; i < n; i++) s += v[i]; return s; }
float rt_max_f32(const float *v, size_t n) { float s = -__builtin_inff(); for (size_t i = 0; i < n; i++) s = v[i] > s ? v[i] : s; return s; }
double rt_sum_f64(const double *v, size_t n) { double s = 0; for (size_t i = 0; i < n; i++) s += v[i]; return s; }
