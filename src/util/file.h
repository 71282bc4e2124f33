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
