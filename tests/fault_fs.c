/* A disk that fails on demand, for the daemon's durability tests
 * (test_hostile.sh): loaded with LD_PRELOAD, it makes file calls under
 * one directory fail the way a full or a read-only disk makes them fail,
 * while a control file says so.
 *
 *   CUZK_FAULT_DIR   paths starting with this are affected
 *   CUZK_FAULT_CTL   a file holding "full", "ro" or nothing (no fault);
 *                    read at every affected call, so a test switches the
 *                    fault while the daemon runs
 *
 * full: write() to a file opened under the directory fails with ENOSPC.
 * ro:   opening for writing, unlink() and rename() fail with EROFS.
 * Everything else passes through to libc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT, O_TMPFILE */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_FD 65536

static unsigned char tracked[MAX_FD]; /* fds opened under the directory */

static int under(const char *path)
{
    const char *dir = getenv("CUZK_FAULT_DIR");
    return dir && *dir && path && !strncmp(path, dir, strlen(dir));
}

/* The fault in force: 0 none, 'f' full, 'r' read-only. */
static int mode(void)
{
    const char *ctl = getenv("CUZK_FAULT_CTL");
    if (!ctl)
        return 0;
    static int (*real_open)(const char *, int, ...);
    static ssize_t (*real_read)(int, void *, size_t);
    static int (*real_close)(int);
    if (!real_open) {
        real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
        real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
        real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    }
    int saved = errno;
    int fd = real_open(ctl, O_RDONLY | O_CLOEXEC);
    char b[8] = {0};
    if (fd >= 0) {
        if (real_read(fd, b, sizeof(b) - 1) < 0)
            b[0] = 0;
        real_close(fd);
    }
    errno = saved;
    return !strncmp(b, "full", 4) ? 'f' : !strncmp(b, "ro", 2) ? 'r' : 0;
}

static int opened(const char *path, int flags, int fd)
{
    if (fd >= 0 && fd < MAX_FD)
        tracked[fd] = (unsigned char)under(path);
    (void)flags;
    return fd;
}

static int refuse_open(const char *path, int flags)
{
    return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) && under(path) && mode() == 'r';
}

/* The body both kinds of open share: the mode (when one is passed), the
 * refusal, the call itself (CALL, with m). */
#define OPEN_BODY(CALL)                                                                        \
    mode_t m = 0;                                                                              \
    if (flags & (O_CREAT | O_TMPFILE)) {                                                       \
        va_list ap;                                                                            \
        va_start(ap, flags);                                                                   \
        m = (mode_t)va_arg(ap, int);                                                           \
        va_end(ap);                                                                            \
    }                                                                                          \
    if (refuse_open(path, flags)) {                                                            \
        errno = EROFS;                                                                         \
        return -1;                                                                             \
    }                                                                                          \
    return opened(path, flags, CALL);

#define OPEN_WRAPPER(NAME)                                                                     \
    int NAME(const char *path, int flags, ...)                                                 \
    {                                                                                          \
        static int (*real)(const char *, int, ...);                                            \
        if (!real)                                                                             \
            real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #NAME);                   \
        OPEN_BODY(real(path, flags, m))                                                        \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(NAME)                                                                   \
    int NAME(int dirfd, const char *path, int flags, ...)                                      \
    {                                                                                          \
        static int (*real)(int, const char *, int, ...);                                       \
        if (!real)                                                                             \
            real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #NAME);              \
        OPEN_BODY(real(dirfd, path, flags, m))                                                 \
    }
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real)
        real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (fd >= 0 && fd < MAX_FD && tracked[fd] && mode() == 'f') {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n);
}

int close(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "close");
    if (fd >= 0 && fd < MAX_FD)
        tracked[fd] = 0;
    return real(fd);
}

int unlink(const char *path)
{
    static int (*real)(const char *);
    if (!real)
        real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    if (under(path) && mode() == 'r') {
        errno = EROFS;
        return -1;
    }
    return real(path);
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    if ((under(from) || under(to)) && mode() == 'r') {
        errno = EROFS;
        return -1;
    }
    return real(from, to);
}
