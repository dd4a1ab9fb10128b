/* Helpers every fuzz target links (see target.h). Not a target itself. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz target: oracle failed: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static char tmp_dir[4096];
static pid_t tmp_owner;

/* Only the directory's own files: the targets never make subdirectories. */
static void tmp_remove(void)
{
    if (!tmp_dir[0] || getpid() != tmp_owner)
        return;
    DIR *dp = opendir(tmp_dir);
    if (dp) {
        struct dirent *e;
        char path[4400];
        while ((e = readdir(dp))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
            unlink(path);
        }
        closedir(dp);
    }
    rmdir(tmp_dir);
}

const char *fuzz_tmpdir(void)
{
    if (tmp_dir[0])
        return tmp_dir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int n = snprintf(tmp_dir, sizeof tmp_dir, "%s/plumb-fuzz.XXXXXX", base);
    if (n <= 0 || (size_t)n >= sizeof tmp_dir || !mkdtemp(tmp_dir)) {
        tmp_dir[0] = 0;
        fuzz_fail("cannot make a temporary directory under '%s'", base);
    }
    tmp_owner = getpid();
    atexit(tmp_remove);
    return tmp_dir;
}

void fuzz_write(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write '%s'", path);
}
