/* Streaming copies and fills for the data-movement kernels (rt_copy.h). */
#include <stdbool.h>
#include <string.h>

#include "rt_copy.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#else
#define RT_X86 0
#endif

#if RT_X86
__attribute__((target("avx2")))
static void stream_lines_avx2(unsigned char *d, const unsigned char *s, size_t lines)
{
    for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_stream_si256((__m256i *)d, a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
    }
}

__attribute__((target("avx512f")))
static void stream_lines_avx512(unsigned char *d, const unsigned char *s, size_t lines)
{
    for (size_t i = 0; i < lines; i++, d += 64, s += 64)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
}

/* the 64 bytes at pat, to each of `lines` aligned lines from d */
__attribute__((target("avx2")))
static void stream_fill_avx2(unsigned char *d, const unsigned char *pat, size_t lines)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)pat), b = _mm256_loadu_si256((const __m256i *)(pat + 32));
    for (size_t i = 0; i < lines; i++, d += 64) {
        _mm256_stream_si256((__m256i *)d, a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
    }
}

__attribute__((target("avx512f")))
static void stream_fill_avx512(unsigned char *d, const unsigned char *pat, size_t lines)
{
    __m512i a = _mm512_loadu_si512((const void *)pat);
    for (size_t i = 0; i < lines; i++, d += 64) _mm512_stream_si512((void *)d, a);
}
#endif

void rt_copy_stream(plumb_isa isa, void *dst, const void *src, size_t bytes)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
#if RT_X86
    if (isa >= PLUMB_ISA_AVX2 && bytes >= 256) {
        /* the head up to d's next line boundary through the cache: the
         * line is shared with whatever precedes dst */
        size_t head = (size_t)((64 - ((uintptr_t)d & 63)) & 63);
        memcpy(d, s, head);
        size_t lines = (bytes - head) / 64;
        if (isa >= PLUMB_ISA_AVX512) stream_lines_avx512(d + head, s + head, lines);
        else stream_lines_avx2(d + head, s + head, lines);
        size_t done = head + lines * 64;
        memcpy(d + done, s + done, bytes - done);
        return;
    }
#endif
    (void)isa;
    memcpy(d, s, bytes);
}

/* Fills [d, d + n*es) with the value; a 64-byte line of it is built once. */
void rt_fill(plumb_isa isa, void *dst, const void *val, size_t es, size_t n, int stream)
{
    unsigned char *d = dst;
    size_t bytes = es * n;
    if (n == 0) return;
    bool zero = true;
    for (size_t i = 0; i < es; i++) zero &= ((const unsigned char *)val)[i] == 0;
    if (!stream && zero) {
        memset(d, 0, bytes);
        return;
    }
    if (!RT_X86 || isa < PLUMB_ISA_AVX2 || es > 64 || 64 % es != 0 || !stream || bytes < 256) {
        /* doubling: each memcpy copies what is already filled */
        memcpy(d, val, es);
        size_t have = es;
        while (have < bytes) {
            size_t k = have < bytes - have ? have : bytes - have;
            memcpy(d + have, d, k);
            have += k;
        }
        return;
    }
    /* es divides 64: a line of the pattern, started at d's phase so that
     * every 64-byte step from a line boundary continues the pattern */
    _Alignas(64) unsigned char line[128];
    for (size_t i = 0; i < 128; i += es) memcpy(line + i, val, es);
    size_t head = (size_t)((64 - ((uintptr_t)d & 63)) & 63);
    memcpy(d, line, head);   /* head < 64 and a multiple of es when d is es-aligned */
    size_t phase = head % es;
    size_t lines = (bytes - head) / 64, done = head;
#if RT_X86
    if (isa >= PLUMB_ISA_AVX512) stream_fill_avx512(d + head, line + phase, lines);
    else stream_fill_avx2(d + head, line + phase, lines);
#endif
    done += lines * 64;
    memcpy(d + done, line + phase, bytes - done);
}

void rt_copy_fence(plumb_isa isa)
{
#if RT_X86
    if (isa >= PLUMB_ISA_AVX2) _mm_sfence();
#endif
    (void)isa;
}
