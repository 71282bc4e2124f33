/* cuzk serve (server_impl.h has the daemon's design): start, recovery,
 * the wait for SIGTERM or SIGINT, shutdown; the table of jobs and a job's
 * JSON. */
#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"
#include "../util/base64.h"
#include "../util/error.h"

int cuzk_has_server(void)
{
    return CUZK_HAVE_SERVER;
}

int cuzk_has_queue(void)
{
    return CUZK_HAVE_SERVER && CUZK_HAVE_PG;
}

#if CUZK_HAVE_SERVER

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../groth16/timings.h"
#include "../util/clock.h"
#include "../util/rand.h"
#include "options.h"
#include "server_impl.h"

/* ---------------------------------------------------------------- jobs */

sjob *server_find_job(server *s, const char *id)
{
    for (sjob *j = s->jobs; j; j = j->next)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

void server_free_job(sjob *j)
{
    journal_free_pending(j->pend);
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    free(j);
}

int server_new_id(char out[33])
{
    return cuzk_random_hex(out, 16) == CUZK_OK ? 0 : -1;
}



/* ---------------------------------------------------------------- a job's JSON */

/* The job's waits and its proof's times (every field of src/groth16/
 * phases.h), and where it ran. */
static json_t *timings_json(const cuzk_job_info *i)
{
    const cuzk_timings *t = &i->timings;
    json_t *o = json_pack("{s:f, s:f}", "queue_wait", i->queue_wait, "load", i->load);
    for (size_t k = 0; o && k < TIMING_FIELDS; k++)
        json_object_set_new(o, timing_fields[k].key, json_real(timing_value(t, &timing_fields[k])));
    if (o) {
        json_object_set_new(o, "total", json_real(t->total));
        json_object_set_new(o, "device", json_string(t->device));
    }
    return o;
}

void server_log(const server *s, cuzk_log_level level, const char *fmt, ...)
{
    if (!s->cfg.log)
        return;
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    s->cfg.log(s->cfg.log_arg, level, msg);
}

/* A job of partitions' "partitions" (their count) and, for BLS12-381,
 * "bellperson": base64 of each proof as bellperson writes it (192 bytes,
 * in partition order: Filecoin's 1,920 for a PoRep). */
static void set_partitions(json_t *o, json_t *proofs)
{
    size_t n = json_array_size(proofs);
    json_object_set_new(o, "partitions", json_integer((json_int_t)n));
    unsigned char *bytes = malloc(n * CUZK_BELLPERSON_PROOF_BYTES + 1);
    char *text = malloc(base64_len(n * CUZK_BELLPERSON_PROOF_BYTES) + 1);
    int ok = bytes && text;
    for (size_t k = 0; ok && k < n; k++) {
        const char *curve = json_string_value(json_object_get(json_array_get(proofs, k), "curve"));
        char *one = curve && !strcmp(curve, "bls12381") ? json_dumps(json_array_get(proofs, k), JSON_COMPACT) : NULL;
        cuzk_error err;
        ok = one && cuzk_proof_to_bellperson(one, strlen(one), bytes + k * CUZK_BELLPERSON_PROOF_BYTES, &err) == CUZK_OK;
        free(one);
    }
    if (ok) {
        text[base64_encode(bytes, n * CUZK_BELLPERSON_PROOF_BYTES, text)] = 0;
        json_object_set_new(o, "bellperson", json_string(text));
    }
    free(bytes);
    free(text);
}

json_t *server_job_json(const sjob *j)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "id", j->id, "state", cuzk_job_state_name(j->info.state), "priority",
                          j->priority);
    if (j->info.state >= CUZK_JOB_RUNNING)
        json_object_set_new(o, "timings", timings_json(&j->info));
    if (j->info.finish_seq)
        json_object_set_new(o, "finished", json_integer((json_int_t)j->info.finish_seq));
    if (j->info.state == CUZK_JOB_FAILED)
        json_object_set_new(o, "error", json_string(j->info.error));
    if (j->proof && j->pub) {
        json_t *p = json_loads(j->proof, 0, NULL), *q = json_loads(j->pub, 0, NULL);
        if (json_is_array(p)) /* a job of partitions: one proof each, and bellperson's bytes */
            set_partitions(o, p);
        if (p)
            json_object_set_new(o, "proof", p);
        if (q)
            json_object_set_new(o, "public", q);
    }
    return o;
}


static int serve_blocked(const cuzk_serve_config *cfg, const sigset_t *stop_signals, cuzk_error *err);

int cuzk_serve(const cuzk_serve_config *cfg, cuzk_error *err)
{
    if (!cfg || !cfg->host || !cfg->state_dir)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_serve: NULL argument");
    /* SIGTERM, SIGINT (stop) and SIGHUP (reload) are blocked in every
     * thread (the engine's and libmicrohttpd's inherit the mask) and taken
     * by sigwait below, so neither depends on which thread a signal lands
     * in */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    int rc = serve_blocked(cfg, &stop_signals, err);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}

/* Whether an IPv4 address text is a loopback one (127.0.0.0/8). */
static int is_loopback(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 24) == 127;
}

/* Room for max_connections sockets (and the files proofs open): the soft
 * limit on descriptors raised as far as needed and allowed. When the hard
 * limit is too low, the connection limit shrinks to fit, with a warning. */
static void fit_descriptors(server *s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)s->cfg.max_connections + 256;
    if (rl.rlim_cur < want) {
        rlim_t cur = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = cur;
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        unsigned fit = rl.rlim_cur > 512 ? (unsigned)(rl.rlim_cur - 256) : 256;
        server_log(s, CUZK_LOG_WARN,
                   "the descriptor limit (%llu) leaves room for %u connections, not %u (--max-connections): raise "
                   "it (ulimit -n, LimitNOFILE=)",
                   (unsigned long long)rl.rlim_cur, fit, s->cfg.max_connections);
        s->cfg.max_connections = fit;
        if (s->cfg.max_connections_per_ip > fit)
            s->cfg.max_connections_per_ip = fit;
    }
}

/* The shutdown (docs/api.md): no new connections; every queued job
 * cancelled (it stays journaled and runs after the next start); long
 * polls answered now; running proofs get the grace period, then are
 * cancelled the same way; the answers are given a moment to reach their
 * clients before the connections close. */
static void serve_shutdown(server *s, struct MHD_Daemon *d)
{
    /* closed at once: a new client is refused (and retries) instead of
     * waiting in the backlog */
    MHD_socket listener = MHD_quiesce_daemon(d);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    for (sjob *j = s->jobs; j; j = j->next) {
        cuzk_job_info info;
        cuzk_error e2;
        if (!j->ended && cuzk_engine_wait(s->engine, j->eid, 0, &info, &e2) == CUZK_OK &&
            info.state == CUZK_JOB_QUEUED)
            server_ignore_status(cuzk_engine_cancel(s->engine, j->eid, &e2));
    }
    api_jobs_changed(s, NULL);
    pthread_mutex_unlock(&s->mu);
    double t0 = cuzk_now();
    cuzk_engine_stats st;
    for (cuzk_engine_get_stats(s->engine, &st); st.running; cuzk_engine_get_stats(s->engine, &st)) {
        if (s->cfg.shutdown_grace < 0 || cuzk_now() - t0 >= s->cfg.shutdown_grace) {
            pthread_mutex_lock(&s->mu);
            unsigned n = 0;
            for (sjob *j = s->jobs; j; j = j->next) {
                cuzk_error e2;
                if (!j->ended && cuzk_engine_cancel(s->engine, j->eid, &e2) == CUZK_OK)
                    n++;
            }
            pthread_mutex_unlock(&s->mu);
            if (n)
                server_log(s, CUZK_LOG_INFO, "%u running job%s left journaled after the %.0f s grace: %s at the next start",
                           n, n == 1 ? "" : "s", s->cfg.shutdown_grace > 0 ? s->cfg.shutdown_grace : 0.0,
                           n == 1 ? "it runs" : "they run");
            /* a cancelled proof ends at its stage's end (a GPU call runs
             * to its end): waited for below, so that what finished is
             * journaled */
            for (cuzk_engine_get_stats(s->engine, &st); st.running; cuzk_engine_get_stats(s->engine, &st))
                usleep(20000);
            break;
        }
        usleep(20000);
    }
    /* every parked poll answered (libmicrohttpd must have none suspended
     * when it stops), then up to 2 s for clients to read their answers */
    double t1 = cuzk_now();
    for (;;) {
        pthread_mutex_lock(&s->mu);
        api_jobs_changed(s, NULL);
        unsigned left = s->n_suspended;
        pthread_mutex_unlock(&s->mu);
        const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (!left && (!di || !di->num_connections || cuzk_now() - t1 > 2))
            break;
        usleep(10000);
    }
    MHD_stop_daemon(d);
}

/* The engine's progress (key reads, first uploads) as log lines: one
 * every 5 s for a stage that runs longer than 2 s, and one when it ends. */
enum { PROGRESS_QUIET_FOR = 2, PROGRESS_EVERY = 5 };

static void server_progress(void *ctx, const char *stage, unsigned long long done, unsigned long long total)
{
    server *s = ctx;
    double now = cuzk_now();
    enum { N = sizeof(s->progress) / sizeof(s->progress[0]) };
    char line[400];
    int show = 0;
    pthread_mutex_lock(&s->progress_mu);
    progress_meter *m = NULL;
    for (int i = 0; i < N && !m; i++)
        if (s->progress[i].start > 0 && !strncmp(s->progress[i].stage, stage, sizeof(s->progress[i].stage) - 1))
            m = &s->progress[i];
    for (int i = 0; i < N && !m; i++)
        if (s->progress[i].start == 0)
            m = &s->progress[i];
    if (!m) /* more at once than slots: the oldest gives way */
        for (int i = 0; i < N; i++)
            if (!m || s->progress[i].start < m->start)
                m = &s->progress[i];
    progress_meter_update(m, stage, done, total, now);
    int finished = done >= total;
    if ((now - m->start >= PROGRESS_QUIET_FOR && now - m->last_line >= PROGRESS_EVERY) || (finished && m->lines)) {
        progress_format(m, done, total, now, line, sizeof(line));
        if (finished)
            snprintf(line + strlen(line), sizeof(line) - strlen(line), " in %.1f s", now - m->start);
        m->last_line = now;
        m->lines++;
        show = 1;
    }
    if (finished)
        m->start = 0; /* the slot is free */
    pthread_mutex_unlock(&s->progress_mu);
    if (show)
        server_log(s, CUZK_LOG_INFO, "%s", line);
}

/* The operator's key i (--key, with its --key-circuit for a .params key). */
static int server_load_key(server *s, unsigned i, cuzk_error *e)
{
    const char *r1cs = s->cfg.key_r1cs_paths ? s->cfg.key_r1cs_paths[i] : NULL;
    return r1cs ? cuzk_engine_key_load_params(s->engine, s->cfg.key_ids[i], s->cfg.key_paths[i], r1cs, e)
                : cuzk_engine_key_load(s->engine, s->cfg.key_ids[i], s->cfg.key_paths[i], e);
}

/* SIGHUP: what can change without a restart is read again: the token
 * file (a rotated token; connections already accepted keep nothing of
 * the old one) and the operator's --key ID=PATH keys (a key file
 * replaced: its id gets the new key, jobs running finish with the old).
 * What fails to load keeps what was there, with a message. The listen
 * address, TLS files, directories and engine options need a restart. */
static void serve_reload(server *s)
{
    cuzk_error e = {0};
    int token = 0, keys = 0, failed = 0;
    if (auth_reload(s, &token, &e) != CUZK_OK) {
        server_log(s, CUZK_LOG_ERROR, "SIGHUP: %s; the old token stays", e.message);
        failed++;
    }
    for (unsigned i = 0; i < s->cfg.n_keys; i++) {
        const char *id = s->cfg.key_ids[i], *path = s->cfg.key_paths[i];
        e = (cuzk_error){0};
        if (server_load_key(s, i, &e) == CUZK_OK)
            keys++;
        else {
            server_log(s, CUZK_LOG_ERROR, "SIGHUP: --key %s=%s: %s; the key loaded before stays", id, path,
                       e.message);
            failed++;
        }
    }
    server_log(s, failed ? CUZK_LOG_WARN : CUZK_LOG_INFO, "SIGHUP: reloaded %s%u key%s%s", token ? "the token, " : "",
               keys, keys == 1 ? "" : "s", failed ? " (some failed: see above)" : "");
}

/* The operator's --key ID=PATH keys, loaded before the journal resumes the
 * jobs that name them. */
static int preload_keys(server *s, cuzk_error *err)
{
    for (unsigned i = 0; i < s->cfg.n_keys; i++) {
        cuzk_error e = {0};
        const char *id = s->cfg.key_ids[i], *path = s->cfg.key_paths[i];
        if (!url_id_valid(id))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                  "--key %s=%s: the id expects 1 to %d letters, digits, '-', '_' or '.'", id, path,
                                  URL_ID_MAX);
        int rc = server_load_key(s, i, &e);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "--key %s=%s: %s", id, path, e.message);
    }
    return CUZK_OK;
}

/* One daemon a state directory: a second one would prove every journaled
 * job again and race the first on its files. An exclusive lock on
 * DIR/lock (released by the kernel when the holder dies, so a kill -9
 * leaves nothing to clean), holding the holder's pid for the message. The
 * descriptor stays open while the daemon runs (*fd). */
static int lock_state_dir(const char *dir, int *fd, cuzk_error *err)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s/lock", dir);
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (f < 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "--state-dir %s: cannot open its lock file %s: %s", dir, path,
                              strerror(errno));
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char pid[32] = "";
        ssize_t n = pread(f, pid, sizeof(pid) - 1, 0);
        close(f);
        pid[n > 0 ? n : 0] = 0;
        pid[strspn(pid, "0123456789")] = 0;
        if (e == EWOULDBLOCK)
            return cuzk_error_set(err, CUZK_ERR_BUSY,
                                  "--state-dir %s is in use by another cuzk serve (process %s, which holds %s): one "
                                  "daemon a state directory",
                                  dir, pid[0] ? pid : "unknown", path);
        return cuzk_error_set(err, CUZK_ERR_IO, "--state-dir %s: cannot lock %s: %s", dir, path, strerror(e));
    }
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)n, 0) != n) {
        /* the lock holds without the pid; only the message of a second daemon lacks it */
    }
    *fd = f;
    return CUZK_OK;
}

static int serve_blocked(const cuzk_serve_config *cfg, const sigset_t *stop_signals, cuzk_error *err)
{
    server s;
    memset(&s, 0, sizeof(s));
    s.cfg = *cfg;
    s.jobs_changed = api_jobs_changed;
    s.store = cfg->queue ? &queue_store : &journal_store;
    int rc = serve_options_resolve(&s.cfg, err); /* the table's defaults and bounds (options.c) */
    if (rc != CUZK_OK)
        return rc;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons(cfg->port);
    if (inet_pton(AF_INET, cfg->host, &addr.sin_addr) != 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "--listen: '%s' is not an IPv4 address", cfg->host);
    if (!is_loopback(&addr.sin_addr) && (!cfg->token_file || !cfg->tls_cert_file))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "--listen %s is not a loopback address: the daemon then needs --token-file (clients "
                              "authenticate) and --tls-cert/--tls-key (the token and proofs are encrypted); see "
                              "docs/security.md",
                              cfg->host);
    if (mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "--state-dir %s: cannot create: %s", cfg->state_dir, strerror(errno));
    snprintf(s.jobs_dir, sizeof(s.jobs_dir), "%s/jobs", cfg->state_dir);
    snprintf(s.vks_dir, sizeof(s.vks_dir), "%s/vks", cfg->state_dir);
    if (mkdir(s.jobs_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", s.jobs_dir, strerror(errno));
    if (mkdir(s.vks_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", s.vks_dir, strerror(errno));
    int lock_fd = -1;
    if ((rc = lock_state_dir(cfg->state_dir, &lock_fd, err)) != CUZK_OK)
        return rc;
    fit_descriptors(&s);
    pthread_mutex_init(&s.mu, NULL);
    pthread_mutex_init(&s.progress_mu, NULL);
    pthread_mutex_init(&s.auth_mu, NULL);
    pthread_cond_init(&s.published, NULL);
    pthread_mutex_init(&s.conns_mu, NULL);
    struct MHD_Daemon *d = NULL;
    unsigned resubmitted = 0;
    cuzk_engine_config ecfg = cfg->engine;
    if (!ecfg.progress && cfg->log) {
        ecfg.progress = server_progress;
        ecfg.progress_ctx = &s;
    }
    if ((rc = paths_init(&s, err)) != CUZK_OK || (rc = auth_init(&s, err)) != CUZK_OK)
        goto out;
    /* a client's paths are opened only beneath these (paths.c) */
    ecfg.key_dirs = (const char *const *)s.dirs[PATHS_KEY];
    ecfg.n_key_dirs = s.n_dirs[PATHS_KEY];
    ecfg.witness_dirs = (const char *const *)s.dirs[PATHS_WITNESS];
    ecfg.n_witness_dirs = s.n_dirs[PATHS_WITNESS];
    if ((rc = cuzk_engine_create(&ecfg, &s.engine, err)) != CUZK_OK || (rc = preload_keys(&s, err)) != CUZK_OK)
        goto out;
    /* the jobs: in the local journal, or on a queue the nodes share (cluster.c) */
    if ((rc = cfg->queue ? cluster_start(&s, err) : journal_recover(&s, &resubmitted, err)) != CUZK_OK)
        goto out;
    /* epoll from a pool of threads: a connection costs a socket, not a
     * thread (server_impl.h); suspend/resume parks long polls */
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &addr},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)api_request_done, &s},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)conns_notify, &s},
        {MHD_OPTION_THREAD_POOL_SIZE, s.cfg.http_threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, s.cfg.max_connections, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, s.cfg.max_connections_per_ip, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)(s.cfg.idle_timeout + 0.999), NULL},
        {MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL},
        {s.tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, s.tls_cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, s.tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                             (s.tls_cert ? MHD_USE_TLS : 0),
                         0, NULL, NULL, api_handler, &s, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!d) {
        rc = cuzk_error_set(err, CUZK_ERR_IO, "--listen %s:%u: cannot listen (address in use?%s)", cfg->host,
                            cfg->port, s.tls_cert ? "; or --tls-cert and --tls-key do not make a certificate and its key" : "");
        goto out;
    }
    if (conns_start(&s) != 0) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the thread that closes slow connections");
        goto out;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = di ? di->port : cfg->port;
    if (s.cluster)
        server_log(&s, CUZK_LOG_INFO, "listening on %s:%u%s%s (node %s of the job queue; lease %.0f s)", cfg->host,
                   port, s.tls_cert ? ", HTTPS" : "", s.token ? ", bearer token required" : "",
                   cfg->node && *cfg->node ? cfg->node : "(the host name)", s.cfg.lease);
    else
        server_log(&s, CUZK_LOG_INFO, "listening on %s:%u%s%s (state %s; %u journaled job%s resumed)", cfg->host,
                   port, s.tls_cert ? ", HTTPS" : "", s.token ? ", bearer token required" : "", cfg->state_dir,
                   resubmitted, resubmitted == 1 ? "" : "s");
    if (!s.cluster && pthread_create(&s.watcher, NULL, journal_watcher_main, &s) != 0) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the watcher thread");
        goto out;
    }
    if (s.n_unchecked) {
        if (pthread_create(&s.checker, NULL, journal_checker_main, &s) != 0) {
            s.stop = 1;
            pthread_join(s.watcher, NULL);
            rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the thread that checks the kept proofs");
            goto out;
        }
        s.checker_started = 1;
    }
    for (;;) {
        int sig = 0;
        if (sigwait(stop_signals, &sig) != 0)
            continue;
        if (sig != SIGHUP)
            break;
        serve_reload(&s);
    }
    server_log(&s, CUZK_LOG_INFO, "stopping");
    serve_shutdown(&s, d);
    d = NULL;
    s.stop = 1;
    if (s.cluster)
        cluster_stop(&s); /* what ended is written, the rest given back to the queue */
    else {
        pthread_join(s.watcher, NULL);
        if (s.checker_started)
            pthread_join(s.checker, NULL); /* within its batch (0.1 s) */
        journal_sweep(&s); /* record what just ended */
    }
    server_log(&s, CUZK_LOG_INFO, "stopped");
out:
    s.stop = 1;
    conns_stop(&s);
    if (d)
        MHD_stop_daemon(d);
    cluster_stop(&s); /* a start that failed */
    cuzk_engine_destroy(s.engine);
    while (s.jobs) {
        sjob *n = s.jobs->next;
        server_free_job(s.jobs);
        s.jobs = n;
    }
    auth_free(&s);
    paths_free(&s);
    pthread_cond_destroy(&s.published);
    pthread_mutex_destroy(&s.mu);
    pthread_mutex_destroy(&s.progress_mu);
    pthread_mutex_destroy(&s.auth_mu);
    pthread_mutex_destroy(&s.conns_mu);
    close(lock_fd);
    return rc;
}

#else

int cuzk_serve(const cuzk_serve_config *cfg, cuzk_error *err)
{
    (void)cfg;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                          "this cuzk was built without the server (install libmicrohttpd-dev and libjansson-dev, "
                          "then rebuild)");
}

#endif
