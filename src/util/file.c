#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

char *tmp_path_for(const char *path)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

int write_file_atomic(const char *path, const void *data, size_t len, cuzk_error *err)
{
    char *tmp = tmp_path_for(path);
    if (!tmp)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        free(tmp);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    int ok = fwrite(data, 1, len, f) == len && fflush(f) == 0;
    int e = errno;
    ok &= fclose(f) == 0;
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok)
        remove(tmp);
    free(tmp);
    return ok ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(e));
}
