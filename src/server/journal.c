/* The daemon's journal (server_impl.h): every accepted request and every
 * result is a file in DIR/jobs, written durably (temporary file, fsync,
 * rename, fsync of the directory) before the client hears of it; a
 * restart reads them back (journal_recover). The request digest is what
 * makes a retry under a request id find its first job. The watcher thread
 * journals results as the engine ends jobs; after a restart, the checker
 * thread verifies the kept proofs before they are served. */
#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"

#if CUZK_HAVE_SERVER

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "../util/file.h"
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

int journal_write_in(const char *dir, const char *name, const void *data, size_t len)
{
    char tmp[4400], path[4400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const unsigned char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return fsync_dir(dir);
}

/* Writes DIR/jobs/name atomically and durably: temporary file, fsync,
 * rename, fsync of the directory. */
int journal_write_durable(const server *s, const char *name, const void *data, size_t len)
{
    return journal_write_in(s->jobs_dir, name, data, len);
}

void journal_upload_name(char *out, size_t cap, const char *id, int k)
{
    if (k < 0)
        snprintf(out, cap, "%s.wtns", id);
    else
        snprintf(out, cap, "%s.%d.wtns", id, k);
}

int journal_remove_job(const server *s, const char *id, unsigned uploaded_parts)
{
    int failed = 0;
    /* .req first: without it the rest is an orphan (removed at the next
     * start); then the uploads (-1: <id>.wtns; k: partition k's), .res */
    for (long i = -2; i <= (long)uploaded_parts; i++) {
        char name[80], path[4400];
        if (i == -2)
            snprintf(name, sizeof(name), "%s.req", id);
        else if (i == (long)uploaded_parts)
            snprintf(name, sizeof(name), "%s.res", id);
        else
            journal_upload_name(name, sizeof(name), id, (int)i);
        snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, name);
        if (unlink(path) != 0 && errno != ENOENT) {
            if (!failed)
                failed = errno;
            if (i == -2)
                break; /* the record stays whole: nothing else goes */
        }
    }
    if (!failed && fsync_dir(s->jobs_dir) != 0)
        failed = errno;
    errno = failed;
    return failed ? -1 : 0;
}

int journal_drop_job(server *s, sjob *j, const char *what)
{
    int rc = journal_remove_job(s, j->id, j->uploaded_parts), e = errno;
    pthread_mutex_lock(&s->mu);
    if (rc == 0) {
        s->jobs_changed(s, j->id); /* a poll parked on it looks again, and finds it gone */
        for (sjob **pp = &s->jobs; *pp; pp = &(*pp)->next)
            if (*pp == j) {
                *pp = j->next;
                break;
            }
        s->n_jobs--;
    } else {
        j->removing = 0;
        j->retry_at = cuzk_now() + 10; /* an expiry tries again then */
        journal_note(s, what, e);
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == 0)
        server_free_job(j);
    errno = e;
    return rc;
}

void journal_note(server *s, const char *what, int err_no)
{
    if (!what) {
        s->journal_error[0] = 0;
        return;
    }
    if (!s->journal_error[0])
        server_log(s, CUZK_LOG_ERROR, "the journal cannot be written (%s: %s); no new work is taken until it can",
                   what, strerror(err_no));
    snprintf(s->journal_error, sizeof(s->journal_error), "%s in %.200s: %s", what, s->cfg.state_dir, strerror(err_no));
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

static void digest_count(sha256_state *h, char tag, unsigned long long v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    digest_field(h, tag, b, sizeof(b));
}

/* What tells a retry from another request under the same request id: the
 * key (its path or id, as sent), the witnesses (paths as sent, uploads by
 * their decoded bytes, so base64's variants agree; generated partitions
 * by their numbers) and the priority (0-3, so "high" and 2 agree). Each
 * field is tagged and length-prefixed: no two requests hash the same
 * bytes; a request of one proof hashes as before partitions existed. */
void journal_request_digest(const char *key_path, const char *key_id, const char *r1cs_path,
                            const request_witness *w, int priority, unsigned char out[REQUEST_DIGEST_LEN])
{
    sha256_state h;
    sha256_init(&h);
    static const char version[] = "cuzk request v1";
    sha256_update(&h, version, sizeof(version));
    if (key_path)
        digest_field(&h, 'K', key_path, strlen(key_path));
    else
        digest_field(&h, 'k', key_id, strlen(key_id));
    if (r1cs_path) /* only when given: older requests' digests stay */
        digest_field(&h, 'R', r1cs_path, strlen(r1cs_path));
    if (w->path)
        digest_field(&h, 'W', w->path, strlen(w->path));
    else if (w->bytes)
        digest_field(&h, 'w', w->bytes, w->len);
    else if (w->paths || w->list) {
        digest_count(&h, w->paths ? 'L' : 'U', w->n);
        for (unsigned k = 0; k < w->n; k++)
            if (w->paths)
                digest_field(&h, 'W', w->paths[k], strlen(w->paths[k]));
            else
                digest_field(&h, 'w', w->list[k], w->list_len[k]);
    } else {
        digest_count(&h, 'G', w->generated);
        digest_count(&h, 'g', w->first);
    }
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
int journal_digest_from_hex(const char *hex, unsigned char d[REQUEST_DIGEST_LEN])
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

/* The record's writer; journal_submit, below, is its reader. */
json_t *journal_record(json_t *req, const request_witness *wit, int prio, const char *request_id,
                       const unsigned char *digest)
{
    json_t *jr = json_pack("{s:i}", "priority", prio);
    if (!jr)
        return NULL;
    json_t *kp = json_object_get(req, "key_path"), *rp = json_object_get(req, "r1cs_path");
    json_object_set(jr, kp ? "key_path" : "key_id", kp ? kp : json_object_get(req, "key_id"));
    if (rp)
        json_object_set(jr, "r1cs_path", rp);
    if (wit->path)
        json_object_set_new(jr, "witness_path", json_string(wit->path));
    else if (wit->paths)
        json_object_set(jr, "witness_paths", json_object_get(req, "witness_paths"));
    else if (wit->generated) {
        json_object_set_new(jr, "partitions", json_integer(wit->generated));
        json_object_set_new(jr, "partition", json_integer(wit->first));
    } else if (wit->bytes)
        json_object_set_new(jr, "witness_journaled", json_true());
    else
        json_object_set_new(jr, "witnesses_journaled", json_integer(wit->n));
    if (request_id[0]) {
        char hex[2 * REQUEST_DIGEST_LEN + 1];
        journal_digest_hex(digest, hex);
        json_object_set_new(jr, "request_id", json_string(request_id));
        json_object_set_new(jr, "request_digest", json_string(hex));
    }
    return jr;
}

/* Submits a journaled request (req: the .req JSON) to the engine, its
 * paths checked (again, after a restart: the operator's directories may
 * have changed) and resolved by paths_check. */
int journal_submit(server *s, const char *id, json_t *req, unsigned long long *eid, cuzk_error *err)
{
    cuzk_job_request r = {0};
    const char *key_path = json_string_value(json_object_get(req, "key_path"));
    const char *witness_path = json_string_value(json_object_get(req, "witness_path"));
    const char *r1cs_path = json_string_value(json_object_get(req, "r1cs_path"));
    r.key_id = json_string_value(json_object_get(req, "key_id"));
    r.priority = (int)json_integer_value(json_object_get(req, "priority"));
    char kpath[4400], wpath[4400], rpath[4400], msg[600];
    /* a client's files are opened beneath the operator's directories,
     * checked on what is opened (a link swapped in after this check
     * cannot lead outside); uploads are the daemon's own */
    if (!s->cfg.allow_any_path)
        r.confine = CUZK_CONFINE_KEY | (json_is_true(json_object_get(req, "witness_journaled")) ||
                                                json_object_get(req, "witnesses_journaled")
                                            ? 0
                                            : CUZK_CONFINE_WITNESS);
    if (key_path) {
        if (paths_check(s, PATHS_KEY, key_path, kpath, sizeof(kpath), msg, sizeof(msg)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s", msg);
        r.key_path = kpath;
    }
    if (r1cs_path) {
        if (paths_check(s, PATHS_KEY, r1cs_path, rpath, sizeof(rpath), msg, sizeof(msg)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s", msg);
        r.r1cs_path = rpath;
    }
    /* a job of partitions: witness paths (the client's, checked, or its
     * journaled uploads), or partitions made from the key's circuit */
    json_t *wl = json_object_get(req, "witness_paths");
    json_int_t uploads = json_integer_value(json_object_get(req, "witnesses_journaled"));
    json_int_t generated = json_integer_value(json_object_get(req, "partitions"));
    if (json_is_true(json_object_get(req, "witness_journaled"))) {
        char name[80];
        journal_upload_name(name, sizeof(name), id, -1);
        snprintf(wpath, sizeof(wpath), "%s/%s", s->jobs_dir, name);
        r.witness_path = wpath;
    } else if (witness_path) {
        if (paths_check(s, PATHS_WITNESS, witness_path, wpath, sizeof(wpath), msg, sizeof(msg)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s", msg);
        r.witness_path = wpath;
    } else if (generated > 0 && generated <= CUZK_JOB_MAX_PARTITIONS) {
        json_int_t first = json_integer_value(json_object_get(req, "partition"));
        r.generate_witness = 1;
        r.partitions = (unsigned)generated;
        r.partition = first >= 0 && first <= UINT32_MAX ? (unsigned)first : 0;
    } else {
        size_t n = wl ? json_array_size(wl) : uploads > 0 && uploads <= CUZK_JOB_MAX_PARTITIONS ? (size_t)uploads : 0;
        if (!n || n > CUZK_JOB_MAX_PARTITIONS)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "the journaled request names no witness");
        char **paths = calloc(n, sizeof(char *));
        int rc = paths ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        for (size_t k = 0; rc == CUZK_OK && k < n; k++) {
            if (!(paths[k] = malloc(4400)))
                rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
            else if (wl) {
                const char *p = json_string_value(json_array_get(wl, k));
                if (!p)
                    rc = cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "witness_paths[%zu] is not a string", k);
                else if (paths_check(s, PATHS_WITNESS, p, paths[k], 4400, msg, sizeof(msg)))
                    rc = cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "witness_paths[%zu]: %s", k, msg);
            } else {
                char name[80];
                journal_upload_name(name, sizeof(name), id, (int)k);
                snprintf(paths[k], 4400, "%s/%s", s->jobs_dir, name);
            }
        }
        if (rc == CUZK_OK) {
            r.partitions = (unsigned)n;
            r.witness_paths = (const char *const *)paths;
            rc = cuzk_engine_submit(s->engine, &r, eid, err);
        }
        for (size_t k = 0; paths && k < n; k++)
            free(paths[k]);
        free(paths);
        return rc;
    }
    return cuzk_engine_submit(s->engine, &r, eid, err);
}

/* The result of a job the engine ended, fetched from it (then the engine
 * forgets the job): its proof, public inputs and verification key. */
static void fetch_result(server *s, sjob *j, pending_end *p)
{
    cuzk_error err;
    if (p->info.state == CUZK_JOB_DONE) {
        if (cuzk_engine_result(s->engine, j->eid, &p->proof, &p->pub, &err) != CUZK_OK)
            p->proof = p->pub = NULL;
        if (cuzk_engine_result_vk(s->engine, j->eid, &p->vk, &err) != CUZK_OK)
            p->vk = NULL;
    }
    server_ignore_status(cuzk_engine_release(s->engine, j->eid, &err));
}

/* Writes an ended job's result durably: its verification key under
 * vks/<sha256>.json (once per key), then <id>.res; then its uploaded
 * witness goes. 0, or -1 with *what and errno saying what failed. */
static int write_result(server *s, const sjob *j, const pending_end *p, char vk_hex[65], const char **what)
{
    vk_hex[0] = 0;
    if (p->vk) {
        journal_hash(p->vk, strlen(p->vk), vk_hex);
        char name[80], path[4500];
        snprintf(name, sizeof(name), "%s.json", vk_hex);
        snprintf(path, sizeof(path), "%s/%s", s->vks_dir, name);
        if (access(path, F_OK) != 0 && journal_write_in(s->vks_dir, name, p->vk, strlen(p->vk)) != 0) {
            *what = "cannot write a verification key";
            return -1;
        }
    }
    /* id and priority never change once published: read without the lock */
    sjob view = {.priority = j->priority, .info = p->info, .proof = p->proof, .pub = p->pub};
    memcpy(view.id, j->id, sizeof(view.id));
    json_t *o = server_job_json(&view);
    if (o && vk_hex[0])
        json_object_set_new(o, "vk", json_string(vk_hex));
    /* bound to its job: a .res copied over another job's is refused at the
     * next start (load_result) */
    if (o && j->request_hash[0])
        json_object_set_new(o, "request", json_string(j->request_hash));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text) {
        *what = "cannot encode a result";
        errno = ENOMEM;
        return -1;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s.res", j->id);
    int rc = journal_write_durable(s, name, text, strlen(text));
    int e = errno;
    free(text);
    if (rc != 0) {
        *what = "cannot write a result";
        errno = e;
        return -1;
    }
    /* uploads are not needed any more: the result stands for the job */
    for (long k = j->uploaded ? -1 : 0; k < (long)j->uploaded_parts; k++) {
        char name[80], path[4400];
        journal_upload_name(name, sizeof(name), j->id, (int)k);
        snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, name);
        unlink(path);
    }
    return 0;
}

void journal_hash(const void *data, size_t len, char out[65])
{
    unsigned char d[32];
    sha256_state h;
    sha256_init(&h);
    sha256_update(&h, data, len);
    sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void journal_free_pending(pending_end *p)
{
    if (!p)
        return;
    cuzk_free(p->proof);
    cuzk_free(p->pub);
    cuzk_free(p->vk);
    free(p);
}

/* Moves ended jobs from the engine into the journal and the table, and
 * drops results past their TTL. The table's lock is held only to look and
 * to publish: each result is written and fsync'd with the lock released,
 * so a slow disk never stalls the HTTP threads. A job is shown as ended
 * only once its result is durable, so an answer a client saw survives a
 * crash; one whose result cannot be written stays "running" (its result
 * in j->pend) and is written again at the next sweep. Only this thread
 * ends jobs the engine ran (the checker ends the kept ones, which this one
 * skips), and a job marked `removing` is freed only by whoever marked it,
 * so the pointers held across the unlocked parts stay valid. */
void journal_sweep(server *s)
{
    struct {
        sjob *j;
        int fetch; /* its result is still in the engine */
        int ok;    /* written */
        char vk[65];
    } *ends = NULL;
    sjob **expired = NULL;
    size_t n_ends = 0, cap_ends = 0, n_expired = 0, cap_expired = 0;
    double now = cuzk_now();
    pthread_mutex_lock(&s->mu);
    for (sjob *j = s->jobs; j; j = j->next) {
        int end = 0;
        if (j->ended) {
            if (j->removing || now - j->t_end <= s->cfg.result_ttl || now < j->retry_at)
                continue;
            if (n_expired == cap_expired) {
                size_t cap = cap_expired ? 2 * cap_expired : 16;
                sjob **g = realloc(expired, cap * sizeof(*g));
                if (!g)
                    continue; /* the next sweep */
                expired = g;
                cap_expired = cap;
            }
            j->removing = 1;
            expired[n_expired++] = j;
            continue;
        }
        if (j->unchecked)
            continue; /* the checker's */
        if (j->pend) {
            if (now < j->retry_at)
                continue;
            end = 1; /* its result waits to be written */
        }
        else {
            cuzk_job_info info;
            cuzk_error err;
            if (cuzk_engine_wait(s->engine, j->eid, 0, &info, &err) != CUZK_OK)
                continue;
            if (info.state == CUZK_JOB_CANCELLED && s->stopping) {
                /* cancelled by the shutdown: left journaled, resumed at the
                 * next start; a client still sees it queued or running */
            } else if (info.state >= CUZK_JOB_DONE) {
                if ((j->pend = calloc(1, sizeof(*j->pend)))) {
                    j->pend->info = info;
                    end = 2; /* fetched below, without the lock */
                }
            } else {
                if (info.state != j->info.state)
                    s->jobs_changed(s, j->id); /* queued -> running, seen by long polls */
                j->info = info;
            }
        }
        if (end) {
            if (n_ends == cap_ends) {
                size_t cap = cap_ends ? 2 * cap_ends : 16;
                void *g = realloc(ends, cap * sizeof(*ends));
                if (!g) { /* the next sweep; a result still in the engine is fetched then */
                    if (end == 2) {
                        free(j->pend);
                        j->pend = NULL;
                    }
                    continue;
                }
                ends = g;
                cap_ends = cap;
            }
            ends[n_ends].j = j;
            ends[n_ends].fetch = end == 2;
            ends[n_ends].ok = 0;
            n_ends++;
        }
    }
    pthread_mutex_unlock(&s->mu);

    /* expired: their files, then (when gone) the records */
    for (size_t i = 0; i < n_expired; i++)
        journal_drop_job(s, expired[i], "cannot remove an expired job's files");
    free(expired);

    const char *what = NULL;
    int err_no = 0;
    for (size_t i = 0; i < n_ends; i++) {
        sjob *j = ends[i].j;
        if (ends[i].fetch)
            fetch_result(s, j, j->pend);
        ends[i].ok = write_result(s, j, j->pend, ends[i].vk, &what) == 0;
        if (!ends[i].ok)
            err_no = errno;
    }
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < n_ends; i++) {
        sjob *j = ends[i].j;
        if (!ends[i].ok) {
            j->retry_at = now + 1; /* a disk that is full stays so for a while */
            continue;
        }
        pending_end *p = j->pend;
        j->info = p->info;
        j->proof = p->proof;
        j->pub = p->pub;
        memcpy(j->vk, ends[i].vk, sizeof(j->vk));
        p->proof = p->pub = NULL;
        journal_free_pending(p);
        j->pend = NULL;
        j->ended = 1;
        j->t_end = cuzk_now();
        s->jobs_changed(s, j->id);
    }
    if (what)
        journal_note(s, what, err_no);
    else if (n_ends)
        journal_note(s, NULL, 0);
    s->jobs_changed(s, NULL);
    pthread_mutex_unlock(&s->mu);
    free(ends);
}

int journal_probe(server *s)
{
    double now = cuzk_now();
    if (now < s->probe_at)
        return !s->probe_failed;
    s->probe_at = now + JOURNAL_PROBE_SECONDS;
    const char *what = NULL;
    int e = 0;
    struct statvfs v;
    int known = statvfs(s->jobs_dir, &v) == 0;
    if (known && (v.f_flag & ST_RDONLY)) {
        what = "the state directory is on a read-only file system";
        e = EROFS;
    } else if (known && (unsigned long long)v.f_bavail * v.f_frsize < JOURNAL_MIN_FREE) {
        what = "the state directory's disk is full";
        e = ENOSPC;
    } else {
        char path[4400];
        snprintf(path, sizeof(path), "%s/.probe", s->jobs_dir);
        if (journal_write_durable(s, ".probe", "probe\n", 6) != 0 || unlink(path) != 0) {
            e = errno;
            what = "cannot write the state directory";
        }
    }
    pthread_mutex_lock(&s->mu);
    if (what) {
        journal_note(s, what, e);
        s->probe_failed = 1;
    } else if (s->probe_failed) { /* only what the probe said: a result that cannot be written says so itself */
        journal_note(s, NULL, 0);
        s->probe_failed = 0;
    }
    pthread_mutex_unlock(&s->mu);
    return what == NULL;
}

void *journal_watcher_main(void *arg)
{
    server *s = arg;
    while (!s->stop) {
        journal_sweep(s);
        journal_probe(s);
        usleep(5000);
    }
    return NULL;
}

/* A recovered job's request id and digest, from its .req: its retries
 * keep finding it after a restart. An entry without one (or from before
 * request ids) leaves the job without. */
static void restore_request_id(const server *s, sjob *j, json_t *req)
{
    const char *rid = json_string_value(json_object_get(req, "request_id"));
    if (!rid)
        return;
    if (!request_id_valid(rid) ||
        journal_digest_from_hex(json_string_value(json_object_get(req, "request_digest")), j->request_digest) != 0) {
        server_log(s, CUZK_LOG_WARN,
                   "job %s: its journaled request id or digest is unreadable; a retry of it will make a new job",
                   j->id);
        return;
    }
    snprintf(j->request_id, sizeof(j->request_id), "%s", rid);
}

/* Whether name is "<32 hex digits><ext>". */
static int job_file(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    if (n != 32 + e || strcmp(name + 32, ext))
        return 0;
    for (int i = 0; i < 32; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return 1;
}

/* Whether name is "<32 hex digits>.<decimal>.wtns", a partition's upload. */
static int part_upload_file(const char *name)
{
    size_t n = strlen(name);
    if (n < 32 + 7 || name[32] != '.' || strcmp(name + n - 5, ".wtns"))
        return 0;
    size_t hex = 0;
    while (hex < 32 && ((name[hex] >= '0' && name[hex] <= '9') || (name[hex] >= 'a' && name[hex] <= 'f')))
        hex++;
    size_t digits = strspn(name + 33, "0123456789");
    return hex == 32 && digits > 0 && digits < 6 && 33 + digits == n - 5;
}

/* Whether name is "<64 hex digits>.json", a key in vks/. */
static int vk_file(const char *name)
{
    return strlen(name) == 69 && strspn(name, "0123456789abcdef") == 64 && !strcmp(name + 64, ".json");
}

static int exists_in(const char *dir, const char *id, const char *ext)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s%s", dir, id, ext);
    return access(path, F_OK) == 0;
}

/* What a crash can leave behind: temporary files of unfinished writes
 * (".NAME.tmp"), and results or uploaded witnesses whose request is gone
 * (a removal cut short). Removed at the start; returns how many. */
static unsigned remove_leftovers(const char *dir, const server *s)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        size_t len = strlen(nm);
        int tmp = nm[0] == '.' && len > 5 && !strcmp(nm + len - 4, ".tmp");
        int orphan = s && (job_file(nm, ".res") || job_file(nm, ".wtns") || part_upload_file(nm));
        if (orphan) {
            char id[33];
            memcpy(id, nm, 32);
            id[32] = 0;
            orphan = !exists_in(dir, id, ".req");
        }
        if (tmp || orphan) {
            char path[4400];
            snprintf(path, sizeof(path), "%s/%s", dir, nm);
            n += unlink(path) == 0;
        }
    }
    closedir(d);
    return n;
}

/* A journal file (<id><ext>) read and parsed: regular files only, opened
 * without blocking (a FIFO put there cannot stall the start), at most max
 * bytes; with hash, the hex SHA-256 of its bytes. NULL when missing or
 * unreadable. */
static json_t *load_journal_file(const server *s, const char *id, const char *ext, size_t max, char hash[65])
{
    char path[4400], *text;
    size_t len;
    cuzk_error e2;
    snprintf(path, sizeof(path), "%s/%s%s", s->jobs_dir, id, ext);
    if (read_file_bounded(path, max, "a journal file", &text, &len, &e2) != CUZK_OK)
        return NULL;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (hash)
        journal_hash(text, len, hash);
    free(text);
    if (o && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

enum { REQ_MAX_BYTES = 16 << 20, RES_MAX_BYTES = 64 << 20 }; /* 1,024 witness paths; 1,024 proofs */

/* Whether a stored proof is one: an object of pi_a, pi_b, pi_c (and
 * protocol, curve), nothing else; its public signals an array of strings.
 * What is served from a .res is what was checked. */
static int proof_shape(json_t *p, json_t *q)
{
    if (!json_is_object(p) || !json_is_array(q))
        return 0;
    const char *key;
    json_t *v;
    json_object_foreach(p, key, v)
    {
        if (strcmp(key, "pi_a") && strcmp(key, "pi_b") && strcmp(key, "pi_c") && strcmp(key, "protocol") &&
            strcmp(key, "curve"))
            return 0;
    }
    size_t i;
    json_array_foreach(q, i, v)
    {
        if (!json_is_string(v))
            return 0;
    }
    return json_object_get(p, "pi_a") && json_object_get(p, "pi_b") && json_object_get(p, "pi_c");
}

unsigned journal_remove_uploads(const server *s)
{
    DIR *d = opendir(s->jobs_dir);
    if (!d)
        return 0;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!job_file(de->d_name, ".wtns") && !part_upload_file(de->d_name))
            continue;
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, de->d_name);
        n += unlink(path) == 0;
    }
    closedir(d);
    return n;
}

/* Loads a kept result (res: the .res JSON) into j: a failed or cancelled
 * one as ended (0), a proof as unchecked, its result in j->pend (1); -1
 * when unreadable or not this job's (its id, and the hash of the request
 * it answers: a result copied over another job's is not served). */
static int load_result(sjob *j, json_t *res)
{
    const char *st = json_string_value(json_object_get(res, "state"));
    int state = cuzk_job_state_from_name(st);
    if (state != CUZK_JOB_DONE && state != CUZK_JOB_FAILED && state != CUZK_JOB_CANCELLED)
        return -1;
    const char *rid = json_string_value(json_object_get(res, "id"));
    const char *rq = json_string_value(json_object_get(res, "request"));
    if (!rid || strcmp(rid, j->id) || !rq || strcmp(rq, j->request_hash))
        return -1;
    json_t *pr = json_object_get(res, "priority");
    if (!json_is_integer(pr) || json_integer_value(pr) < CUZK_PRIORITY_LOW ||
        json_integer_value(pr) > CUZK_PRIORITY_CRITICAL)
        return -1;
    cuzk_job_info info = {0};
    j->priority = (int)json_integer_value(pr);
    info.state = state;
    const char *e = json_string_value(json_object_get(res, "error"));
    if (e)
        snprintf(info.error, sizeof(info.error), "%s", e);
    json_int_t fin = json_integer_value(json_object_get(res, "finished"));
    info.finish_seq = fin > 0 ? (unsigned long long)fin : 0;
    if (info.state != CUZK_JOB_DONE) {
        j->info = info;
        j->ended = 1;
        j->t_end = cuzk_now();
        return 0;
    }
    json_t *p = json_object_get(res, "proof"), *q = json_object_get(res, "public");
    const char *vk = json_string_value(json_object_get(res, "vk"));
    /* one proof: an object and its publics; a job of partitions: arrays of them */
    int shape = proof_shape(p, q);
    if (json_is_array(p) && json_is_array(q) && json_array_size(p) && json_array_size(p) == json_array_size(q)) {
        shape = 1;
        for (size_t k = 0; k < json_array_size(p); k++)
            shape &= proof_shape(json_array_get(p, k), json_array_get(q, k));
    }
    if (!shape || !vk || strlen(vk) != 64 || strspn(vk, "0123456789abcdef") != 64)
        return -1;
    if (!(j->pend = calloc(1, sizeof(*j->pend))))
        return -1;
    j->pend->info = info;
    j->pend->proof = json_dumps(p, JSON_INDENT(1));
    j->pend->pub = json_dumps(q, JSON_INDENT(1));
    if (!j->pend->proof || !j->pend->pub) {
        journal_free_pending(j->pend);
        j->pend = NULL;
        return -1;
    }
    memcpy(j->vk, vk, 65);
    j->unchecked = 1;
    j->info.state = CUZK_JOB_RUNNING;
    return 1;
}

/* Back to a job to prove again: a result that cannot be trusted is
 * dropped (file and memory), and the request resubmitted. */
static void forget_result(server *s, sjob *j)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s.res", s->jobs_dir, j->id);
    unlink(path);
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    j->proof = j->pub = NULL;
    journal_free_pending(j->pend);
    j->pend = NULL;
    j->unchecked = 0;
    j->vk[0] = 0;
    j->ended = 0;
    memset(&j->info, 0, sizeof(j->info));
}

/* Submits a request again (after a restart); a job that cannot be is
 * failed with the reason. */
static int resubmit(server *s, sjob *j, json_t *req)
{
    cuzk_error e2 = {0};
    if (!req || journal_submit(s, j->id, req, &j->eid, &e2) != CUZK_OK) {
        j->ended = 1;
        j->t_end = cuzk_now();
        j->info.state = CUZK_JOB_FAILED;
        snprintf(j->info.error, sizeof(j->info.error), "not resumed after a restart: %.400s",
                 req ? e2.message : "unreadable journal entry");
        return 0;
    }
    j->priority = (int)json_integer_value(json_object_get(req, "priority"));
    j->info.state = CUZK_JOB_QUEUED;
    return 1;
}

/* Whether any job's result names a verification key (linear: at the start only). */
static int vk_used(const server *s, const char *hex)
{
    for (const sjob *j = s->jobs; j; j = j->next)
        if (!strncmp(j->vk, hex, 64))
            return 1;
    return 0;
}

/* Resubmits journaled requests without results; loads kept results (a
 * proof is checked by the checker thread before it is served: the daemon
 * listens meanwhile); removes what a crash left behind. */
int journal_recover(server *s, unsigned *resubmitted, cuzk_error *err)
{
    *resubmitted = 0;
    unsigned left = remove_leftovers(s->jobs_dir, s) + remove_leftovers(s->vks_dir, NULL);
    DIR *d = opendir(s->jobs_dir);
    if (!d)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", s->jobs_dir, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!job_file(de->d_name, ".req"))
            continue;
        char id[33];
        memcpy(id, de->d_name, 32);
        id[32] = 0;
        sjob *j = calloc(1, sizeof(*j));
        if (!j)
            continue;
        memcpy(j->id, id, sizeof(j->id));
        json_t *req = load_journal_file(s, id, ".req", REQ_MAX_BYTES, j->request_hash);
        /* a request names its job: a copy under another name (or a request
         * id another request already has) is not a second job */
        const char *named = json_string_value(json_object_get(req, "id"));
        const char *rid = json_string_value(json_object_get(req, "request_id"));
        sjob *twin = NULL;
        for (sjob *o = s->jobs; rid && o; o = o->next)
            if (!strcmp(o->request_id, rid))
                twin = o;
        if ((named && strcmp(named, id)) || twin) {
            server_log(s, CUZK_LOG_WARN,
                       "%s/%s.req: %s; not resumed (remove the file to silence this)", s->jobs_dir, id,
                       twin ? "its request id is another journaled job's (a copy?)"
                            : "it is the request of another job (a copy?)");
            json_decref(req);
            free(j);
            continue;
        }
        restore_request_id(s, j, req);
        j->uploaded = json_is_true(json_object_get(req, "witness_journaled"));
        json_int_t parts = json_integer_value(json_object_get(req, "witnesses_journaled"));
        j->uploaded_parts = parts > 0 && parts <= CUZK_JOB_MAX_PARTITIONS ? (unsigned)parts : 0;
        int stored = exists_in(s->jobs_dir, id, ".res");
        json_t *res = stored ? load_journal_file(s, id, ".res", RES_MAX_BYTES, NULL) : NULL;
        if (stored && (!res || load_result(j, res) < 0)) {
            server_log(s, CUZK_LOG_WARN, "job %s: its stored result is %s; proving it again", id,
                       res ? "unreadable or another job's" : "not a JSON object in a regular file");
            forget_result(s, j);
        }
        json_decref(res);
        if (!j->ended && !j->unchecked)
            *resubmitted += (unsigned)resubmit(s, j, req);
        s->n_unchecked += (unsigned)j->unchecked;
        json_decref(req);
        j->next = s->jobs;
        s->jobs = j;
        s->n_jobs++;
    }
    closedir(d);
    if (s->n_unchecked)
        server_log(s, CUZK_LOG_INFO, "%u stored proof%s to check before %s served (in the background)",
                   s->n_unchecked, s->n_unchecked == 1 ? "" : "s", s->n_unchecked == 1 ? "it is" : "they are");
    if (left)
        server_log(s, CUZK_LOG_INFO, "removed %u file%s a crash left behind", left, left == 1 ? "" : "s");
    /* keys no stored proof names any more */
    DIR *v = opendir(s->vks_dir);
    while (v && (de = readdir(v))) {
        if (!vk_file(de->d_name))
            continue;
        if (!vk_used(s, de->d_name)) {
            char path[4500];
            snprintf(path, sizeof(path), "%s/%s", s->vks_dir, de->d_name);
            unlink(path);
        }
    }
    if (v)
        closedir(v);
    return CUZK_OK;
}

/* A batch of stored proofs the checker verifies at once (OpenMP over the
 * batch), a pairing each (~3 ms of one core for BLS12-381, BENCHMARKS.md
 * "The daemon under a soak"): 64 keep a batch near 0.1 s on 2 cores, so
 * that a client waiting on one is answered soon. */
#define CHECK_BATCH 64

typedef struct stored_check {
    sjob *j;
    const char *vk; /* the key's JSON (one copy per distinct key), NULL when missing */
    int ok;
    unsigned long long eid; /* a bad one: proved again */
    int resubmitted, priority;
    char error[400];
} stored_check;

typedef struct stored_key {
    const char *hex;
    char *text;
} stored_key;

/* A kept result's proof against its key's vk; a job of partitions': each
 * of its proofs against its publics (load_result checked the shapes). */
static int stored_proofs_verify(const char *vk, const pending_end *p)
{
    cuzk_error e2;
    if (p->proof[0] != '[')
        return cuzk_verify_json(vk, strlen(vk), p->pub, strlen(p->pub), p->proof, strlen(p->proof), &e2) == CUZK_OK;
    json_t *proofs = json_loads(p->proof, 0, NULL), *pubs = json_loads(p->pub, 0, NULL);
    int ok = json_is_array(proofs) && json_is_array(pubs) && json_array_size(proofs) == json_array_size(pubs);
    for (size_t k = 0; ok && k < json_array_size(proofs); k++) {
        char *a = json_dumps(json_array_get(proofs, k), JSON_COMPACT);
        char *b = json_dumps(json_array_get(pubs, k), JSON_COMPACT);
        ok = a && b && cuzk_verify_json(vk, strlen(vk), b, strlen(b), a, strlen(a), &e2) == CUZK_OK;
        free(a);
        free(b);
    }
    json_decref(proofs);
    json_decref(pubs);
    return ok;
}

/* One batch of the checker: proofs of kept results (journal_recover
 * marked them unchecked, shown running) checked against the verification
 * key each names (vks/<sha256>.json), then published as done; one that
 * fails is proved again under its id. */
static void check_stored(server *s)
{
    stored_check *c = calloc(CHECK_BATCH, sizeof(*c));
    if (!c)
        return;
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    /* those a client waits on first (a long poll parked on it), alone: a
     * daemon restarted often would otherwise answer them only after it
     * checked everything kept (with kills every second under ASan, never) */
    for (sjob *j = s->jobs; j && n < CHECK_BATCH; j = j->next)
        if (j->waiters && j->unchecked)
            c[n++].j = j;
    int waited_on = n > 0;
    for (sjob *j = s->jobs; !waited_on && j && n < CHECK_BATCH; j = j->next)
        if (j->unchecked)
            c[n++].j = j;
    for (size_t i = 0; i < n; i++)
        c[i].j->unchecked = 1;
    pthread_mutex_unlock(&s->mu);
    /* an unchecked job's pend and vk are the checker's alone: read
     * without the lock. Each key read once a batch. */
    stored_key *keys = calloc(n ? n : 1, sizeof(*keys));
    size_t n_keys = 0;
    for (size_t i = 0; keys && i < n; i++) {
        const char *hex = c[i].j->vk;
        size_t k = 0;
        while (k < n_keys && strcmp(keys[k].hex, hex))
            k++;
        if (k == n_keys) {
            char path[4500];
            size_t len;
            cuzk_error e2;
            snprintf(path, sizeof(path), "%s/%s.json", s->vks_dir, hex);
            keys[k].hex = hex;
            if (read_file_bounded(path, 1u << 30, "a verification key", &keys[k].text, &len, &e2) != CUZK_OK)
                keys[k].text = NULL;
            n_keys++;
        }
        c[i].vk = keys[k].text;
    }
    double t0 = cuzk_now();
#pragma omp parallel for schedule(dynamic)
    for (size_t i = 0; i < n; i++)
        c[i].ok = c[i].vk && stored_proofs_verify(c[i].vk, c[i].j->pend);
    s->check_seconds += cuzk_now() - t0;
    /* the bad ones: their result goes, their request is proved again */
    for (size_t i = 0; i < n; i++) {
        if (c[i].ok)
            continue;
        sjob *j = c[i].j;
        server_log(s, CUZK_LOG_WARN, "job %s: its stored proof does not verify against %s (damaged?); proving it again",
                   j->id, c[i].vk ? "its key" : "a key that is missing from vks/");
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s.res", s->jobs_dir, j->id);
        unlink(path);
        json_t *req = load_journal_file(s, j->id, ".req", REQ_MAX_BYTES, NULL);
        cuzk_error e2 = {0};
        c[i].resubmitted = req && journal_submit(s, j->id, req, &c[i].eid, &e2) == CUZK_OK;
        c[i].priority = (int)json_integer_value(json_object_get(req, "priority"));
        snprintf(c[i].error, sizeof(c[i].error), "not resumed after a restart: %.300s",
                 req ? e2.message : "unreadable journal entry");
        json_decref(req);
    }
    unsigned bad = 0;
    double now = cuzk_now();
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < n; i++) {
        sjob *j = c[i].j;
        pending_end *p = j->pend;
        j->pend = NULL;
        j->unchecked = 0;
        s->n_unchecked--;
        if (c[i].ok) {
            j->info = p->info;
            j->proof = p->proof;
            j->pub = p->pub;
            p->proof = p->pub = NULL;
            j->ended = 1;
            j->t_end = now;
        } else {
            bad++;
            j->vk[0] = 0;
            memset(&j->info, 0, sizeof(j->info));
            if (c[i].resubmitted) {
                j->eid = c[i].eid;
                j->priority = c[i].priority;
                j->info.state = CUZK_JOB_QUEUED;
            } else {
                j->ended = 1;
                j->t_end = now;
                j->info.state = CUZK_JOB_FAILED;
                snprintf(j->info.error, sizeof(j->info.error), "%s", c[i].error);
            }
        }
        journal_free_pending(p);
        s->jobs_changed(s, j->id);
    }
    s->n_checked += n;
    s->n_check_failed += bad;
    unsigned left = s->n_unchecked;
    s->jobs_changed(s, NULL);
    pthread_mutex_unlock(&s->mu);
    if (!left) {
        server_log(s, CUZK_LOG_INFO, "%u stored proof%s checked in %.2f s%s", s->n_checked,
                   s->n_checked == 1 ? "" : "s", s->check_seconds,
                   s->n_check_failed ? " (some failed: proving them again)" : "");
    }
    for (size_t k = 0; k < n_keys; k++)
        free(keys[k].text);
    free(keys);
    free(c);
}

void *journal_checker_main(void *arg)
{
    server *s = arg;
    while (!s->stop && s->n_unchecked)
        check_stored(s);
    return NULL;
}

/* ------------------------------------------------- the store (api.c's) */

/* The job recorded under a client's request id (lock held). */
static sjob *find_by_request_id(server *s, const char *request_id)
{
    for (sjob *j = s->jobs; j; j = j->next)
        if (j->request_id[0] && !strcmp(j->request_id, request_id))
            return j;
    return NULL;
}

static pending_request *find_pending(server *s, const char *request_id)
{
    for (pending_request *p = s->pending; p; p = p->next)
        if (!strcmp(p->request_id, request_id))
            return p;
    return NULL;
}

/* Under the table's lock: a request id known already gives its outcome
 * here, the job it names (STORE_DUPLICATE: a retry; even when the daemon
 * is full, since it adds nothing) or STORE_CONFLICT. A retry racing its
 * first attempt, still being journaled, waits for that to be published or
 * to fail. STORE_NEW when the request is new. */
static int known_request(server *s, const char *request_id, const unsigned char *digest, char id[33], int *state,
                         cuzk_error *err)
{
    for (;;) {
        sjob *j = find_by_request_id(s, request_id);
        if (j && !memcmp(j->request_digest, digest, REQUEST_DIGEST_LEN)) {
            memcpy(id, j->id, 33);
            *state = j->info.state;
            return STORE_DUPLICATE;
        }
        if (j) {
            /* the job's id stays its owner's: it is the right to read and delete it */
            cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                           "request_id '%s' names another request (its key, witness or priority differ): a new "
                           "request needs a new request_id",
                           request_id);
            return STORE_CONFLICT;
        }
        pending_request *p = find_pending(s, request_id);
        if (!p)
            return STORE_NEW;
        if (memcmp(p->digest, digest, REQUEST_DIGEST_LEN)) {
            cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                           "request_id '%s' names another request, being accepted now (its key, witness or priority "
                           "differ): a new request needs a new request_id",
                           request_id);
            return STORE_CONFLICT;
        }
        pthread_cond_wait(&s->published, &s->mu);
    }
}

/* The request is written and fsync'd with the table's lock released (a
 * slow disk must not stall every other request): a slot is reserved under
 * the lock so the table's bound holds (and the request id is marked
 * pending, for a racing retry to wait on), and the job is published only
 * once it is durable and in the engine; the caller answers after that, so
 * an accepted job is always journaled. */
static int store_submit(server *s, json_t *jr, const request_witness *wit, const char *request_id,
                        const unsigned char *digest, char id[33], int *outcome, int *state, cuzk_error *err)
{
    pending_request mine = {.request_id = request_id, .digest = digest};
    unsigned long long eid = 0;
    sjob *j = NULL;
    int rc = CUZK_OK;
    *state = CUZK_JOB_QUEUED;
    id[0] = 0;
    pthread_mutex_lock(&s->mu);
    *outcome = request_id[0] ? known_request(s, request_id, digest, id, state, err) : STORE_NEW;
    if (*outcome == STORE_NEW) {
        if (s->n_jobs + s->n_reserved >= SERVER_MAX_JOBS_TABLE)
            rc = cuzk_error_set(err, CUZK_ERR_BUSY, "too many results kept: retry later");
        else {
            s->n_reserved++;
            if (request_id[0]) {
                mine.next = s->pending;
                s->pending = &mine;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (*outcome != STORE_NEW || rc != CUZK_OK)
        return rc;
    char name[64];
    const char *journal_what = NULL; /* a journal write that failed */
    int journal_errno = 0;
    if (server_new_id(id) != 0) {
        id[0] = 0;
        rc = cuzk_error_set(err, CUZK_ERR_IO, "cannot draw a job id");
    }
    if (rc == CUZK_OK && json_object_set_new(jr, "id", json_string(id)) != 0) /* its name, inside it */
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    /* uploads: <id>.wtns, or a partition's <id>.<k>.wtns */
    unsigned uploads = wit->bytes ? 1 : wit->list ? wit->n : 0;
    for (unsigned k = 0; rc == CUZK_OK && k < uploads; k++) {
        journal_upload_name(name, sizeof(name), id, wit->bytes ? -1 : (int)k);
        if (journal_write_durable(s, name, wit->bytes ? wit->bytes : wit->list[k],
                                  wit->bytes ? wit->len : wit->list_len[k]) != 0) {
            journal_errno = errno;
            journal_what = "cannot write an uploaded witness";
            rc = cuzk_error_set(err, CUZK_ERR_IO,
                                "the daemon cannot journal the witness in %s: %s; it takes no new work until its "
                                "state directory can be written",
                                s->jobs_dir, strerror(errno));
        }
    }
    char *text = rc == CUZK_OK ? json_dumps(jr, JSON_COMPACT) : NULL;
    snprintf(name, sizeof(name), "%s.req", id);
    if (rc == CUZK_OK && (!text || journal_write_durable(s, name, text, strlen(text)) != 0)) {
        journal_errno = text ? errno : ENOMEM;
        journal_what = "cannot write a request";
        rc = cuzk_error_set(err, CUZK_ERR_IO,
                            "the daemon cannot journal the request in %s: %s; it takes no new work until its state "
                            "directory can be written",
                            s->jobs_dir, strerror(journal_errno));
    }
    if (rc == CUZK_OK && !(j = calloc(1, sizeof(*j))))
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    if (rc == CUZK_OK)
        journal_hash(text, strlen(text), j->request_hash); /* what its result will be bound to */
    /* the engine may finish the job before it is published: the watcher
     * finds it in the engine at its next sweep */
    if (rc == CUZK_OK)
        rc = journal_submit(s, id, jr, &eid, err);
    if (rc == CUZK_OK) {
        memcpy(j->id, id, sizeof(j->id));
        snprintf(j->request_id, sizeof(j->request_id), "%s", request_id);
        memcpy(j->request_digest, digest, sizeof(j->request_digest));
        j->uploaded = wit->bytes != NULL;
        j->uploaded_parts = wit->list ? wit->n : 0;
        j->eid = eid;
        j->priority = (int)json_integer_value(json_object_get(jr, "priority"));
        j->info.state = CUZK_JOB_QUEUED;
    } else {
        free(j);
        j = NULL;
    }
    pthread_mutex_lock(&s->mu);
    s->n_reserved--;
    if (request_id[0]) {
        for (pending_request **pp = &s->pending; *pp; pp = &(*pp)->next)
            if (*pp == &mine) {
                *pp = mine.next;
                break;
            }
        pthread_cond_broadcast(&s->published);
    }
    if (j) {
        j->next = s->jobs;
        s->jobs = j;
        s->n_jobs++;
    }
    if (journal_what)
        journal_note(s, journal_what, journal_errno);
    else if (j)
        journal_note(s, NULL, 0);
    pthread_mutex_unlock(&s->mu);
    free(text);
    if (rc != CUZK_OK && id[0])
        journal_remove_job(s, id, wit->list ? wit->n : 0); /* what it cannot remove, the next start does */
    return rc;
}

static int store_job(server *s, const char *id, json_t **out, int *state, cuzk_error *err)
{
    pthread_mutex_lock(&s->mu);
    sjob *j = server_find_job(s, id);
    *out = j ? server_job_json(j) : NULL;
    *state = j ? (int)j->info.state : -1;
    pthread_mutex_unlock(&s->mu);
    if (!j)
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job '%s'", id);
    return *out ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
}

static int store_remove(server *s, const char *id, int *outcome, cuzk_error *err)
{
    pthread_mutex_lock(&s->mu);
    sjob *j = server_find_job(s, id);
    if (!j) {
        pthread_mutex_unlock(&s->mu);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job '%s'", id);
    }
    if (j->unchecked || j->pend) { /* its result is being checked (after a restart) or written */
        const char *what = j->unchecked ? "checked after a restart" : "stored";
        pthread_mutex_unlock(&s->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "job '%s' has ended; its result is being %s: delete it in a moment",
                              id, what);
    }
    if (!j->ended) {
        cuzk_error e2;
        server_ignore_status(cuzk_engine_cancel(s->engine, j->eid, &e2));
        pthread_mutex_unlock(&s->mu);
        *outcome = STORE_CANCELLING;
        return CUZK_OK;
    }
    if (j->removing) { /* another DELETE or its expiry is at it */
        pthread_mutex_unlock(&s->mu);
        *outcome = STORE_DELETING;
        return CUZK_OK;
    }
    /* an ended job: its files go first, with the lock released (no one
     * else frees a job marked removing); only then its record, so that a
     * delete that failed leaves the job as it was, here and after a
     * restart */
    j->removing = 1;
    pthread_mutex_unlock(&s->mu);
    if (journal_drop_job(s, j, "cannot remove a job's files") != 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "job '%s' was not deleted: its files in %s cannot be removed: %s", id,
                              s->jobs_dir, strerror(errno));
    *outcome = STORE_DELETED;
    return CUZK_OK;
}

/* A job a client waits on is checked first after a restart (check_stored). */
static void store_watch(server *s, const char *id, int delta)
{
    sjob *j = server_find_job(s, id);
    if (j)
        j->waiters += (unsigned)delta;
}

const job_store journal_store = {
    .submit = store_submit,
    .job = store_job,
    .remove = store_remove,
    .name = NULL,
    .stats = NULL,
    .watch = store_watch,
};

#endif
