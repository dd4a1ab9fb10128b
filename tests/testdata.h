/* Where the cmocka tests find StableHLO's test files (the same rule as the
 * shell tests and tests/run.sh): $STABLEHLO_TESTDATA when it is set, else
 * $SHARED/stablehlo-testdata, SHARED defaulting to ../shared.
 *
 * A clone that is not beside ../shared has no test files: the tests that
 * need them skip, saying how to enable them, instead of failing. A folder
 * named explicitly by STABLEHLO_TESTDATA is never skipped: if it is missing
 * the test fails, since the user asked for it (CI sets it). */
#ifndef PLUMB_TESTS_TESTDATA_H
#define PLUMB_TESTS_TESTDATA_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define TESTDATA_SKIP_HINT \
    "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"

/* Writes the folder into buf and returns buf, or returns NULL when the
 * default folder does not exist (the caller prints TESTDATA_SKIP_HINT and
 * calls skip()). */
static inline const char *testdata_dir(char *buf, size_t size)
{
    const char *env = getenv("STABLEHLO_TESTDATA");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    const char *shared = getenv("SHARED");
    snprintf(buf, size, "%s/stablehlo-testdata", shared && *shared ? shared : "../shared");
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return buf;
}

#endif
