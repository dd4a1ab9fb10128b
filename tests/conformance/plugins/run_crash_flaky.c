/* Test plugin: the reference, except that it dies (SIGSEGV) executing the
 * one f32 exponential case whose input is a single element, the first time
 * only: it creates the file named by PLUMB_TEST_FLAKY_MARKER before dying
 * and runs normally once the file exists (a flaky crash, for --retry).
 * Without the variable it never crashes. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "certify.h"

static plumb_backend_api api;
static plumb_backend_error *(*ref_execute)(plumb_backend_execute_args *);

static plumb_backend_error *flaky_execute(plumb_backend_execute_args *a)
{
    const char *marker = getenv("PLUMB_TEST_FLAKY_MARKER");
    if (marker && a->n_inputs == 1 && strcmp(a->inputs[0].dtype, "f32") == 0 && a->inputs[0].rank == 1 &&
        a->inputs[0].dims[0] == 1) {
        /* O_EXCL: exactly one execution ever sees the file missing. */
        int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            raise(SIGSEGV);
        }
    }
    return ref_execute(a);
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    const plumb_backend_api *ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "run_crash_flaky";
    ref_execute = ref->execute;
    api.execute = flaky_execute;
    return &api;
}
