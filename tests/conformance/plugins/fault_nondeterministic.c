/* Planted fault: declares determinism (the reference's capabilities) but
 * every other multiply execution flips the lowest bit of its first result's
 * first element, as a reduction order that depends on thread timing would
 * change last bits from run to run. */
#define FAULT_NAME "fault_nondeterministic"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { c->deterministic = 1; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static unsigned long calls;

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if (!strstr(text, "stablehlo.multiply ")) return;
    if (calls++ % 2 == 0 || o->n_buffers == 0 || o->buffers[0].byte_size == 0) return;
    /* Little-endian: the first byte holds the element's lowest bits. */
    unsigned char *p = o->buffers[0].data;
    p[0] ^= 0x01;
}
