/* The reference interpreter's deadline inside nested regions: reduce bodies,
 * sort comparators and scatter update regions that run reduces nested in
 * reduces, and a function called from a reduce body. Each program needs
 * minutes without a deadline (tests/runtime/limits_progs.h); with 50 ms it
 * must stop with the timeout error. An alarm fails the test binary if a run
 * does not stop at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "runtime/limits_progs.h"

static ir_module *parse_verified(const char *src)
{
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(src, strlen(src), "limits.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

/* Every nested-region program stops with a timeout error (naming an op and
 * the limit) once 50 ms have passed, instead of running for minutes. */
static void test_timeout_in_nested_regions(void **state)
{
    (void)state;
    for (int i = 0; i < LIMITS_N_PROGS; i++) {
        ir_module *m = parse_verified(limits_progs[i]);
        plumb_ref_options o = {.struct_size = sizeof o, .timeout_s = 0.05};
        plumb_ref_result res;
        plumb_diag d = {.code = PLUMB_OK};
        bool ok = plumb_ref_run(m, NULL, NULL, 0, &o, &res, &d);
        if (ok)
            plumb_ref_result_free(&res);
        fprintf(stderr, "  %s: %s\n", limits_prog_names[i], d.msg);
        assert_false(ok);
        assert_int_equal(d.code, PLUMB_ERR_RUNTIME);
        assert_non_null(strstr(d.msg, "timeout"));
        assert_non_null(strstr(d.msg, "0.05 s"));
        assert_true(d.loc.line > 0);
        ir_module_free(m);
    }
}

int main(void)
{
    /* A run that never checks its deadline would hang the suite: fail it. */
    alarm(120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout_in_nested_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
