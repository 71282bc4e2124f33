/* Files as every reader and writer of cuzk opens them.
 *
 * Reading: only regular files, opened without blocking (a FIFO or a device
 * named as a key would hang a worker or have an open's side effects), with
 * sizes checked before anything is read. Messages name the path and what
 * was wrong, never the file's content.
 *
 * Writing: data goes to PATH.tmp.PID and is renamed over PATH once
 * complete, so readers never see a partial file; a PATH that is a symbolic
 * link or not a regular file is refused (the rename would replace the
 * link or the device node, not write through it). */
#ifndef CUZK_UTIL_FILE_H
#define CUZK_UTIL_FILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "../../include/cuzk.h"

/* "PATH.tmp.PID", malloc'd (NULL when out of memory). */
char *tmp_path_for(const char *path);

/* Writes len bytes to path atomically (after check_output_path). */
int write_file_atomic(const char *path, const void *data, size_t len, cuzk_error *err);

/* "a directory", "a FIFO", ... for messages. */
const char *file_kind(mode_t mode);

/* Opens a regular file to read: refused (CUZK_ERR_IO, naming its kind)
 * before it is opened when it is anything else; opened with O_NONBLOCK
 * (then cleared) and checked again, so a file swapped in between cannot
 * block either. *fd and *st on success. */
int file_open_regular(const char *path, int *fd, struct stat *st, cuzk_error *err);

/* What a file named by a client (a job's key or witness in the daemon) may
 * be: beneath one of some directories, and at most so large. */
typedef struct file_limits {
    const char *const *within;    /* n_within absolute paths without links (realpath's); none: anywhere */
    unsigned n_within;
    unsigned long long max_bytes; /* 0: any size */
    const char *what;             /* names the bound in the message about a larger file: "a witness of this key" */
} file_limits;

/* file_open_regular within limits (NULL: none). Where the file must lie
 * beneath one of `within`, that is checked twice: on the path before it
 * is opened (nothing outside is opened, and a file outside gets one
 * message whether or not it exists), then on the descriptor opened (its
 * place as the kernel has it, /proc/self/fd), so that a link or a rename
 * swapped in between cannot lead outside: what is checked is what is read.
 * The size is checked before anything is read. */
int file_open_regular_limited(const char *path, const file_limits *lim, int *fd, struct stat *st, cuzk_error *err);

/* CUZK_OK when size is within lim's max_bytes (or lim has none), else
 * CUZK_ERR_FORMAT naming path, its size and the bound. */
int file_size_within(const char *path, unsigned long long size, const file_limits *lim, cuzk_error *err);

/* An absolute path spelled one way: repeated '/' and "." components
 * dropped, no '/' at the end ("..", whose meaning depends on links, is
 * kept). out may be in. 0, or -1 when in is not absolute or out (cap
 * bytes) cannot hold it. */
int path_clean(const char *in, char *out, size_t cap);

/* Whether an absolute path without links lies beneath dir (one too). */
int path_beneath(const char *resolved, const char *dir);

/* Reads a whole regular file of at most max bytes (what names it in the
 * message about a larger one: "a JSON file") into a NUL-terminated buffer
 * (free()); the size is checked before reading. */
int read_file_bounded(const char *path, size_t max, const char *what, char **text, size_t *len, cuzk_error *err);

/* Whether path may be written by the atomic writers: absent, or a regular
 * file (not a link to one). */
int check_output_path(const char *path, cuzk_error *err);

/* 1 when both paths exist and are the same file (device and inode). */
int same_file(const char *a, const char *b);

#endif
