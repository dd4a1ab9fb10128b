/* Copies for the data-movement kernels (runtime/k_copy.c): a copy whose
 * destination will not be read again soon goes out with streaming stores,
 * so the destination's lines are not first read into the cache (a plain
 * store to memory costs a read and a write of the line: a third of a
 * copy's traffic). Used by gather's row path, the strided copies of
 * slice/concatenate/pad and pad's border fill. */
#ifndef PLUMB_RT_COPY_H
#define PLUMB_RT_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "plumb/runtime.h"

/* Copies bigger than this in one kernel stream their stores: below it the
 * result is likely still in L2 when the next op reads it. */
#define RT_STREAM_MIN_BYTES ((size_t)8 << 20)

/* dst[0, bytes) = src[0, bytes); the regions do not overlap. Whole aligned
 * 64-byte lines of dst are written with streaming stores at the AVX2 and
 * AVX-512 levels, the unaligned head and tail through the cache; PORTABLE
 * is memcpy. The caller ends its range with rt_copy_fence. */
void rt_copy_stream(plumb_isa isa, void *dst, const void *src, size_t bytes);

/* dst[0, n) = n copies of the es-byte value at val (es 1, 2, 4, 8 or any),
 * streamed as rt_copy_stream when stream is set. */
void rt_fill(plumb_isa isa, void *dst, const void *val, size_t es, size_t n, int stream);

/* Orders this thread's streaming stores before what follows (another
 * thread's reads after the pool's join). */
void rt_copy_fence(plumb_isa isa);

#endif
