/* Planted fault: f32/any multiply that uses its first input's buffer as
 * scratch space after executing (an in-place kernel that assumes the caller
 * donated the input): the results are right, the caller's input is not. */
#define FAULT_NAME "fault_writes_input"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)o;
    if (!strstr(text, "stablehlo.multiply ") || n_in == 0 || in[0].byte_size == 0 || !in[0].data) return;
    /* The last element's lowest byte: a change whatever the value was. */
    unsigned char *p = in[0].data;
    p[in[0].byte_size - 1] ^= 0x01;
}
