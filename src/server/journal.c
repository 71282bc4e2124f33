/* The daemon's journal (server_impl.h): every accepted request and every
 * result is a file in DIR/jobs, written durably (temporary file, fsync,
 * rename, fsync of the directory) before the client hears of it; a
 * restart reads them back (journal_recover). The request digest is what
 * makes a retry under a request id find its first job. The watcher thread
 * journals results as the engine ends jobs. */
#include "../../include/cuzk.h"

#if CUZK_HAVE_SERVER

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "../util/sha256.h"
#include "server_impl.h"

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    close(fd);
    return r;
}

/* Writes path atomically and durably: temporary file, fsync, rename,
 * fsync of the directory. */
int journal_write_durable(const server *s, const char *name, const void *data, size_t len)
{
    char tmp[4400], path[4400];
    snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", s->jobs_dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    const unsigned char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return fsync_dir(s->jobs_dir);
}

void journal_remove_job(const server *s, const char *id)
{
    static const char *ext[3] = {"req", "wtns", "res"};
    for (int i = 0; i < 3; i++) {
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s.%s", s->jobs_dir, id, ext[i]);
        unlink(path);
    }
}

static void digest_field(sha256_state *h, char tag, const void *data, size_t len)
{
    unsigned char head[9];
    head[0] = (unsigned char)tag;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)((unsigned long long)len >> (8 * i));
    sha256_update(h, head, sizeof(head));
    sha256_update(h, data, len);
}

/* What tells a retry from another request under the same request id: the
 * key (its path or id, as sent), the witness (its path as sent, or its
 * decoded bytes, so base64's variants agree) and the priority (0-3, so
 * "high" and 2 agree). Each field is tagged and length-prefixed: no two
 * requests hash the same bytes. */
void journal_request_digest(const char *key_path, const char *key_id, const char *witness_path,
                           const unsigned char *witness, size_t witness_len, int priority,
                           unsigned char out[REQUEST_DIGEST_LEN])
{
    sha256_state h;
    sha256_init(&h);
    static const char version[] = "cuzk request v1";
    sha256_update(&h, version, sizeof(version));
    if (key_path)
        digest_field(&h, 'K', key_path, strlen(key_path));
    else
        digest_field(&h, 'k', key_id, strlen(key_id));
    if (witness_path)
        digest_field(&h, 'W', witness_path, strlen(witness_path));
    else
        digest_field(&h, 'w', witness, witness_len);
    unsigned char p = (unsigned char)priority;
    digest_field(&h, 'p', &p, 1);
    sha256_final(&h, out);
}

void journal_digest_hex(const unsigned char d[REQUEST_DIGEST_LEN], char out[2 * REQUEST_DIGEST_LEN + 1])
{
    for (int i = 0; i < REQUEST_DIGEST_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* A journaled digest back into bytes; -1 unless exactly 64 hex digits. */
static int digest_from_hex(const char *hex, unsigned char d[REQUEST_DIGEST_LEN])
{
    if (!hex || strlen(hex) != 2 * REQUEST_DIGEST_LEN)
        return -1;
    for (int i = 0; i < 2 * REQUEST_DIGEST_LEN; i++) {
        char ch = hex[i];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        if (i % 2 == 0)
            d[i / 2] = (unsigned char)(v << 4);
        else
            d[i / 2] |= (unsigned char)v;
    }
    return 0;
}

/* Submits a journaled request (req: the .req JSON) to the engine, its
 * paths checked (again, after a restart: the operator's directories may
 * have changed) and resolved by paths_check. */
int journal_submit(server *s, const char *id, json_t *req, unsigned long long *eid, cuzk_error *err)
{
    cuzk_job_request r = {0};
    const char *key_path = json_string_value(json_object_get(req, "key_path"));
    const char *witness_path = json_string_value(json_object_get(req, "witness_path"));
    r.key_id = json_string_value(json_object_get(req, "key_id"));
    r.priority = (int)json_integer_value(json_object_get(req, "priority"));
    char kpath[4400], wpath[4400], msg[600];
    if (key_path) {
        if (paths_check(s, PATHS_KEY, key_path, kpath, sizeof(kpath), msg, sizeof(msg)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s", msg);
        r.key_path = kpath;
    }
    if (json_is_true(json_object_get(req, "witness_journaled"))) {
        snprintf(wpath, sizeof(wpath), "%s/%s.wtns", s->jobs_dir, id);
        r.witness_path = wpath;
    } else if (witness_path) {
        if (paths_check(s, PATHS_WITNESS, witness_path, wpath, sizeof(wpath), msg, sizeof(msg)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s", msg);
        r.witness_path = wpath;
    }
    return cuzk_engine_submit(s->engine, &r, eid, err);
}

/* A job the engine finished, on its way to the journal. */
typedef struct ending {
    sjob *j;
    cuzk_job_info info;
    char *proof, *pub;
} ending;

/* Moves ended jobs from the engine into the journal and the table, and
 * drops results past their TTL. The table's lock is held only to look and
 * to publish: each result is written and fsync'd with the lock released,
 * so a slow disk never stalls the HTTP threads. A job is shown as ended
 * only once its result is durable, so an answer a client saw survives a
 * crash. Only this thread ends jobs and only ended jobs are freed, so the
 * sjob pointers held across the unlocked part stay valid. */
void journal_sweep(server *s)
{
    ending *ends = NULL;
    size_t n_ends = 0, cap_ends = 0;
    sjob *expired = NULL;
    pthread_mutex_lock(&s->mu);
    for (sjob **pp = &s->jobs; *pp;) {
        sjob *j = *pp;
        if (j->ended) {
            if (cuzk_now() - j->t_end > s->cfg.result_ttl) {
                *pp = j->next;
                s->n_jobs--;
                j->next = expired;
                expired = j;
                continue;
            }
            pp = &j->next;
            continue;
        }
        cuzk_job_info info;
        cuzk_error err;
        if (cuzk_engine_wait(s->engine, j->eid, 0, &info, &err) == CUZK_OK) {
            if (info.state == CUZK_JOB_CANCELLED && s->stopping) {
                /* cancelled by the shutdown: left journaled, resumed at the
                 * next start; a client still sees it queued or running */
            } else if (info.state >= CUZK_JOB_DONE) {
                if (n_ends == cap_ends) {
                    size_t cap = cap_ends ? 2 * cap_ends : 16;
                    ending *e = realloc(ends, cap * sizeof(*e));
                    if (!e) { /* the rest wait for the next sweep */
                        pp = &j->next;
                        continue;
                    }
                    ends = e;
                    cap_ends = cap;
                }
                ends[n_ends++] = (ending){.j = j, .info = info};
            } else
                j->info = info; /* queued -> running, seen by long polls */
        }
        pp = &j->next;
    }
    pthread_mutex_unlock(&s->mu);

    while (expired) {
        sjob *n = expired->next;
        journal_remove_job(s, expired->id);
        server_free_job(expired);
        expired = n;
    }
    for (size_t i = 0; i < n_ends; i++) {
        ending *e = &ends[i];
        cuzk_error err;
        if (e->info.state == CUZK_JOB_DONE &&
            cuzk_engine_result(s->engine, e->j->eid, &e->proof, &e->pub, &err) != CUZK_OK)
            e->proof = e->pub = NULL;
        /* id and priority never change once published: read without the lock */
        sjob view = {.priority = e->j->priority, .info = e->info, .proof = e->proof, .pub = e->pub};
        memcpy(view.id, e->j->id, sizeof(view.id));
        json_t *o = server_job_json(&view);
        char *text = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (text) {
            char name[64];
            snprintf(name, sizeof(name), "%s.res", view.id);
            if (journal_write_durable(s, name, text, strlen(text)) != 0)
                fprintf(stderr, "cuzk serve: cannot journal the result of job %s: %s\n", view.id, strerror(errno));
            free(text);
        }
    }
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < n_ends; i++) {
        sjob *j = ends[i].j;
        j->info = ends[i].info;
        j->proof = ends[i].proof;
        j->pub = ends[i].pub;
        j->ended = 1;
        j->t_end = cuzk_now();
    }
    api_wake_parked(s, NULL);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n_ends; i++) {
        cuzk_error err;
        server_ignore_status(cuzk_engine_release(s->engine, ends[i].j->eid, &err));
    }
    free(ends);
}

void *journal_watcher_main(void *arg)
{
    server *s = arg;
    while (!s->stop) {
        journal_sweep(s);
        usleep(5000);
    }
    return NULL;
}

/* A recovered job's request id and digest, from its .req: its retries
 * keep finding it after a restart. An entry without one (or from before
 * request ids) leaves the job without. */
static void restore_request_id(sjob *j, json_t *req)
{
    const char *rid = json_string_value(json_object_get(req, "request_id"));
    if (!rid)
        return;
    if (!request_id_valid(rid) ||
        digest_from_hex(json_string_value(json_object_get(req, "request_digest")), j->request_digest) != 0) {
        fprintf(stderr, "cuzk serve: job %s: its journaled request id or digest is unreadable; a retry of it will "
                        "make a new job\n", j->id);
        return;
    }
    snprintf(j->request_id, sizeof(j->request_id), "%s", rid);
}

/* Resubmits journaled requests without results; loads kept results. */
int journal_recover(server *s, unsigned *resubmitted, cuzk_error *err)
{
    *resubmitted = 0;
    DIR *d = opendir(s->jobs_dir);
    if (!d)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", s->jobs_dir, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n != 36 || strcmp(de->d_name + 32, ".req"))
            continue;
        char id[33], path[4400];
        memcpy(id, de->d_name, 32);
        id[32] = 0;
        sjob *j = calloc(1, sizeof(*j));
        if (!j)
            continue;
        memcpy(j->id, id, sizeof(j->id));
        snprintf(path, sizeof(path), "%s/%s.req", s->jobs_dir, id);
        json_t *req = json_load_file(path, 0, NULL);
        restore_request_id(j, req);
        snprintf(path, sizeof(path), "%s/%s.res", s->jobs_dir, id);
        json_t *res = json_load_file(path, 0, NULL);
        if (res) { /* ended before the restart */
            const char *st = json_string_value(json_object_get(res, "state"));
            j->ended = 1;
            j->t_end = cuzk_now();
            j->priority = (int)json_integer_value(json_object_get(res, "priority"));
            j->info.state = st && !strcmp(st, "done") ? CUZK_JOB_DONE
                            : st && !strcmp(st, "cancelled") ? CUZK_JOB_CANCELLED
                                                             : CUZK_JOB_FAILED;
            const char *e = json_string_value(json_object_get(res, "error"));
            if (e)
                snprintf(j->info.error, sizeof(j->info.error), "%s", e);
            json_t *p = json_object_get(res, "proof"), *q = json_object_get(res, "public");
            if (p && q) {
                j->proof = json_dumps(p, JSON_INDENT(1));
                j->pub = json_dumps(q, JSON_INDENT(1));
            }
            json_decref(res);
        } else {
            cuzk_error e2 = {0};
            if (!req || journal_submit(s, id, req, &j->eid, &e2) != CUZK_OK) {
                j->ended = 1;
                j->t_end = cuzk_now();
                j->info.state = CUZK_JOB_FAILED;
                snprintf(j->info.error, sizeof(j->info.error), "not resumed after a restart: %.400s",
                         req ? e2.message : "unreadable journal entry");
            } else {
                j->priority = (int)json_integer_value(json_object_get(req, "priority"));
                j->info.state = CUZK_JOB_QUEUED;
                (*resubmitted)++;
            }
        }
        json_decref(req);
        j->next = s->jobs;
        s->jobs = j;
        s->n_jobs++;
    }
    closedir(d);
    return CUZK_OK;
}

#endif
