/* Planted fault: bitcast_convert between element widths with the narrow
 * elements in big-endian order (the first narrow element holds the wide
 * element's highest bits; StableHLO's bitcast is little-endian: the
 * first holds the lowest). Same-width bitcasts are right. Every
 * bitcast_convert case kept the width before the sizes family
 * (conformance/gen_sizes.c: bitcast_convert/T_to_U/widths). */
#define FAULT_NAME "fault_bitcast_lanes"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.bitcast_convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype s = fault_dtype(&in[0]), t = fault_dtype(b);
    if (plumb_dtype_is_complex(s) || plumb_dtype_is_complex(t)) return;
    unsigned sb = plumb_dtype_get(s)->bits, tb = plumb_dtype_get(t)->bits;
    if (sb == tb || sb < 8 || tb < 8 || !b->data) return;
    /* reverse the narrow elements within each wide one (an involution, so
     * either direction reads as big-endian) */
    size_t nb = (sb < tb ? sb : tb) / 8, wb = (sb > tb ? sb : tb) / 8, r = wb / nb;
    unsigned char *p = b->data, tmp[8];
    for (size_t g = 0; g + wb <= b->byte_size; g += wb) {
        memcpy(tmp, p + g, wb);
        for (size_t j = 0; j < r; j++) memcpy(p + g + j * nb, tmp + (r - 1 - j) * nb, nb);
    }
}
