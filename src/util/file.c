#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
    int rc = check_output_path(path, err);
    if (rc != CUZK_OK)
        return rc;
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

const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISLNK(mode)  ? "a symbolic link"
           : S_ISREG(mode)  ? "a regular file"
                            : "not a regular file";
}

int file_open_regular(const char *path, int *fd, struct stat *st, cuzk_error *err)
{
    *fd = -1;
    if (stat(path, st) != 0)
        return cuzk_error_set(err, errno == ENOENT ? CUZK_ERR_NOT_FOUND : CUZK_ERR_IO, "%s: cannot open: %s", path,
                              strerror(errno));
    if (!S_ISREG(st->st_mode))
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: is %s, expected a regular file", path, file_kind(st->st_mode));
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0)
        return cuzk_error_set(err, errno == ENOENT ? CUZK_ERR_NOT_FOUND : CUZK_ERR_IO, "%s: cannot open: %s", path,
                              strerror(errno));
    struct stat again;
    if (fstat(f, &again) != 0 || !S_ISREG(again.st_mode)) {
        int e = errno;
        close(f);
        return S_ISREG(again.st_mode) ? cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(e))
                                      : cuzk_error_set(err, CUZK_ERR_IO, "%s: is %s, expected a regular file", path,
                                                       file_kind(again.st_mode));
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0)
        fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *st = again;
    *fd = f;
    return CUZK_OK;
}

int path_clean(const char *in, char *out, size_t cap)
{
    if (in[0] != '/' || cap < 2)
        return -1;
    size_t o = 0;
    for (const char *p = in; *p;) {
        while (*p == '/')
            p++;
        const char *end = p + strcspn(p, "/");
        size_t n = (size_t)(end - p);
        if (n && !(n == 1 && p[0] == '.')) {
            if (o + 1 + n + 1 > cap)
                return -1;
            out[o++] = '/';
            memmove(out + o, p, n);
            o += n;
        }
        p = end;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = 0;
    return 0;
}

int path_beneath(const char *resolved, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return resolved[0] == '/';
    return !strncmp(resolved, dir, n) && resolved[n] == '/';
}

/* or_is: the directory itself counts too */
static int beneath_any(const char *resolved, const file_limits *lim, int or_is)
{
    for (unsigned i = 0; i < lim->n_within; i++)
        if (path_beneath(resolved, lim->within[i]) || (or_is && !strcmp(resolved, lim->within[i])))
            return 1;
    return 0;
}

/* One message whether the file exists or not: it says nothing of what
 * lies outside */
static int outside(const char *path, cuzk_error *err)
{
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                          "%s: not a file beneath the directories allowed for it (links resolved); refused", path);
}

int file_open_regular_limited(const char *path, const file_limits *lim, int *fd, struct stat *st, cuzk_error *err)
{
    *fd = -1;
    int confined = lim && lim->n_within;
    if (confined) {
        char resolved[PATH_MAX];
        if (!realpath(path, resolved)) {
            /* missing: said only where it would lie beneath */
            int e = errno;
            char dir[PATH_MAX];
            snprintf(dir, sizeof(dir), "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
            if (e == ENOENT && slash && slash != dir && realpath(dir, resolved) && beneath_any(resolved, lim, 1))
                return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "%s: cannot open: %s", path, strerror(e));
            return outside(path, err);
        }
        if (!beneath_any(resolved, lim, 0))
            return outside(path, err);
    }
    int rc = file_open_regular(path, fd, st, err);
    if (rc != CUZK_OK || !lim)
        return rc;
    if (confined) {
        char proc[64], opened[PATH_MAX];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", *fd);
        ssize_t n = readlink(proc, opened, sizeof(opened) - 1);
        if (n > 0)
            opened[n] = 0;
        /* without /proc nothing says where it is: refused */
        if (n <= 0 || (size_t)n >= sizeof(opened) - 1 || !beneath_any(opened, lim, 0)) {
            close(*fd);
            *fd = -1;
            return outside(path, err);
        }
    }
    if ((rc = file_size_within(path, (unsigned long long)st->st_size, lim, err)) != CUZK_OK) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

int file_size_within(const char *path, unsigned long long size, const file_limits *lim, cuzk_error *err)
{
    if (!lim || !lim->max_bytes || size <= lim->max_bytes)
        return CUZK_OK;
    return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %llu bytes, larger than the %llu of %s", path, size,
                          lim->max_bytes, lim->what ? lim->what : "the limit");
}

int read_file_bounded(const char *path, size_t max, const char *what, char **text, size_t *len, cuzk_error *err)
{
    *text = NULL;
    *len = 0;
    int fd;
    struct stat st;
    int rc = file_open_regular(path, &fd, &st, err);
    if (rc != CUZK_OK)
        return rc;
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %llu bytes, larger than the %zu accepted for %s", path,
                              (unsigned long long)st.st_size, max, what);
    }
    size_t cap = (size_t)st.st_size;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", path, cap);
    }
    size_t n = 0;
    while (n < cap) { /* a file that grows meanwhile is read as far as its size at the open */
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: read failed: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return CUZK_OK;
}

int check_output_path(const char *path, cuzk_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? CUZK_OK
                               : cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s: is a symbolic link; refusing to replace it (name the file it points to, or remove "
                              "the link)",
                              path);
    if (!S_ISREG(st.st_mode))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: is %s; an output must be a regular file", path,
                              file_kind(st.st_mode));
    return CUZK_OK;
}

int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
