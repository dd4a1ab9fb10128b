/* Temporary: GEMM being written. */
#include "rt_internal.h"

void rt_gemm_f32(rt_exec *x, size_t m, size_t n, size_t k,
                 const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc)
{
    (void)x; (void)m; (void)n; (void)k; (void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc;
}

void rt_gemm_f64(rt_exec *x, size_t m, size_t n, size_t k,
                 const double *a, size_t lda, const double *b, size_t ldb, double *c, size_t ldc)
{
    (void)x; (void)m; (void)n; (void)k; (void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc;
}

void rt_gemm_bf16(rt_exec *x, size_t m, size_t n, size_t k,
                 const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc)
{
    (void)x; (void)m; (void)n; (void)k; (void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc;
}

void rt_gemm_f16(rt_exec *x, size_t m, size_t n, size_t k,
                 const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc)
{
    (void)x; (void)m; (void)n; (void)k; (void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc;
}

