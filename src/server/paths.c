/* What a client can make the daemon open (docs/security.md): the files
 * under the directories its operator named, --key-dir for keys and
 * --witness-dir for witnesses, after resolving links and "..". A path
 * outside them is refused with one message whether or not it exists, so
 * that a client learns nothing of other files; a path inside that does not
 * exist is a 404. The engine then opens the resolved path (regular files
 * only, without blocking: src/util/file.h). --allow-any-path lifts the
 * rule (a trusted network only). */
#include "../../include/cuzk.h"

#if CUZK_HAVE_SERVER

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/error.h"
#include "../util/file.h"
#include "server_impl.h"

static const char *const kind_field[2] = {"key_path", "witness_path"};
static const char *const kind_flag[2] = {"--key-dir", "--witness-dir"};

int paths_init(server *s, cuzk_error *err)
{
    const char *const *given[2] = {s->cfg.key_dirs, s->cfg.witness_dirs};
    unsigned n[2] = {s->cfg.key_dirs ? s->cfg.n_key_dirs : 0, s->cfg.witness_dirs ? s->cfg.n_witness_dirs : 0};
    for (int k = 0; k < 2; k++) {
        if (n[k] > SERVER_MAX_DIRS)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: at most %d directories, got %u", kind_flag[k],
                                  SERVER_MAX_DIRS, n[k]);
        for (unsigned i = 0; i < n[k]; i++) {
            char *r = realpath(given[k][i], NULL);
            if (!r)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s %s: %s", kind_flag[k], given[k][i],
                                      strerror(errno));
            s->dirs[k][s->n_dirs[k]++] = r;
        }
    }
    return CUZK_OK;
}

void paths_free(server *s)
{
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < s->n_dirs[k]; i++)
            free(s->dirs[k][i]);
}

/* Whether resolved (a realpath) lies under one of kind's directories. */
static int under_dirs(const server *s, int kind, const char *resolved)
{
    for (unsigned i = 0; i < s->n_dirs[kind]; i++) {
        const char *d = s->dirs[kind][i];
        size_t n = strlen(d);
        if (!strncmp(resolved, d, n) && (resolved[n] == '/' || (n == 1 && d[0] == '/')))
            return 1;
    }
    return 0;
}

/* Whether resolved is one of kind's directories itself. */
static int is_dir(const server *s, int kind, const char *resolved)
{
    for (unsigned i = 0; i < s->n_dirs[kind]; i++)
        if (!strcmp(resolved, s->dirs[kind][i]))
            return 1;
    return 0;
}

unsigned paths_check(const server *s, int kind, const char *path, char *out, size_t out_len, char *msg,
                     size_t msg_len)
{
    const char *field = kind_field[kind];
    if (s->cfg.allow_any_path) {
        snprintf(out, out_len, "%s", path);
        return 0;
    }
    if (!s->n_dirs[kind]) {
        snprintf(msg, msg_len,
                 "%s: this daemon opens no %s a client names (its operator allows a directory with %s DIR); %s",
                 field, kind == PATHS_KEY ? "key files" : "witness files", kind_flag[kind],
                 kind == PATHS_KEY ? "name a key preloaded with POST /v1/keys/{id} by \"key_id\""
                                   : "upload the witness's bytes as \"witness\" (base64)");
        return 403;
    }
    if (path[0] != '/') {
        snprintf(msg, msg_len, "%s: expected an absolute path, got '%.200s'", field, path);
        return 400;
    }
    char resolved[PATH_MAX];
    if (realpath(path, resolved)) {
        if (under_dirs(s, kind, resolved)) {
            struct stat st;
            if (stat(resolved, &st) == 0 && !S_ISREG(st.st_mode)) { /* the engine would refuse it too */
                snprintf(msg, msg_len, "%s '%.200s': is %s, expected a regular file", field, path,
                         file_kind(st.st_mode));
                return 400;
            }
            snprintf(out, out_len, "%s", resolved);
            return 0;
        }
    } else if (errno == ENOENT || errno == ENOTDIR) {
        /* missing: say so only when the place it would be is allowed */
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir)
            *slash = 0;
        else
            dir[1] = 0;
        if (realpath(dir, resolved) && (under_dirs(s, kind, resolved) || is_dir(s, kind, resolved))) {
            snprintf(msg, msg_len, "%s '%.200s': no such file", field, path);
            return 404;
        }
    }
    snprintf(msg, msg_len, "%s '%.200s': not a file under this daemon's %s directories", field, path,
             kind_flag[kind]);
    return 403;
}

#endif
