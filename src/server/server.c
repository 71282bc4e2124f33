/* cuzk serve (server_impl.h has the daemon's design): start, recovery,
 * the wait for SIGTERM or SIGINT, shutdown; the table of jobs and a job's
 * JSON. */
#include "../../include/cuzk.h"
#include "../util/error.h"

int cuzk_has_server(void)
{
    return CUZK_HAVE_SERVER;
}

#if CUZK_HAVE_SERVER

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../groth16/timings.h"
#include "../util/rand.h"
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
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    free(j);
}

int server_new_id(char out[33])
{
    return cuzk_random_hex(out, 16) == CUZK_OK ? 0 : -1;
}







const char *server_state_name(int state)
{
    static const char *n[] = {"queued", "running", "done", "failed", "cancelled"};
    return state >= 0 && state <= 4 ? n[state] : "unknown";
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

json_t *server_job_json(const sjob *j)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "id", j->id, "state", server_state_name(j->info.state), "priority",
                          j->priority);
    if (j->info.state >= CUZK_JOB_RUNNING)
        json_object_set_new(o, "timings", timings_json(&j->info));
    if (j->info.finish_seq)
        json_object_set_new(o, "finished", json_integer((json_int_t)j->info.finish_seq));
    if (j->info.state == CUZK_JOB_FAILED)
        json_object_set_new(o, "error", json_string(j->info.error));
    if (j->proof && j->pub) {
        json_t *p = json_loads(j->proof, 0, NULL), *q = json_loads(j->pub, 0, NULL);
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
    /* SIGTERM and SIGINT are blocked in every thread (the engine's and
     * libmicrohttpd's inherit the mask) and taken by sigwait below, so the
     * shutdown never depends on which thread a signal lands in */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    int rc = serve_blocked(cfg, &stop_signals, err);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}

static int serve_blocked(const cuzk_serve_config *cfg, const sigset_t *stop_signals, cuzk_error *err)
{
    server s;
    memset(&s, 0, sizeof(s));
    s.cfg = *cfg;
    if (!s.cfg.max_body)
        s.cfg.max_body = 256u << 20;
    if (s.cfg.result_ttl <= 0)
        s.cfg.result_ttl = 3600;
    if (mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "--state-dir %s: cannot create: %s", cfg->state_dir, strerror(errno));
    snprintf(s.jobs_dir, sizeof(s.jobs_dir), "%s/jobs", cfg->state_dir);
    if (mkdir(s.jobs_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", s.jobs_dir, strerror(errno));
    int rc = cuzk_engine_create(&cfg->engine, &s.engine, err);
    if (rc != CUZK_OK)
        return rc;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.published, NULL);
    unsigned resubmitted = 0;
    if ((rc = journal_recover(&s, &resubmitted, err)) != CUZK_OK) {
        cuzk_engine_destroy(s.engine);
        return rc;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons(cfg->port);
    if (inet_pton(AF_INET, cfg->host, &addr.sin_addr) != 1) {
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "--listen: '%s' is not an IPv4 address", cfg->host);
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG, 0, NULL, NULL, api_handler,
        &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, api_request_done, NULL,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)256, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)3700, MHD_OPTION_END);
    if (!d) {
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_IO, "--listen %s:%u: cannot listen (address in use?)", cfg->host,
                              cfg->port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = di ? di->port : cfg->port;
    printf("cuzk serve: listening on %s:%u (state %s; %u journaled job%s resumed)\n", cfg->host, port,
           cfg->state_dir, resubmitted, resubmitted == 1 ? "" : "s");
    fflush(stdout);
    if (pthread_create(&s.watcher, NULL, journal_watcher_main, &s) != 0) {
        MHD_stop_daemon(d);
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the watcher thread");
    }
    int sig = 0;
    while (sigwait(stop_signals, &sig) != 0)
        ;
    /* graceful: stop taking requests, let running proofs finish and land
     * in the journal; queued ones stay journaled for the next start */
    printf("cuzk serve: stopping\n");
    fflush(stdout);
    MHD_stop_daemon(d);
    pthread_mutex_lock(&s.mu);
    s.stopping = 1;
    for (sjob *j = s.jobs; j; j = j->next) {
        cuzk_job_info info;
        cuzk_error e2;
        if (!j->ended && cuzk_engine_wait(s.engine, j->eid, 0, &info, &e2) == CUZK_OK &&
            info.state == CUZK_JOB_QUEUED)
            server_ignore_status(cuzk_engine_cancel(s.engine, j->eid, &e2));
    }
    pthread_mutex_unlock(&s.mu);
    cuzk_engine_stats st;
    for (cuzk_engine_get_stats(s.engine, &st); st.running; cuzk_engine_get_stats(s.engine, &st))
        usleep(20000);
    s.stop = 1;
    pthread_join(s.watcher, NULL);
    journal_sweep(&s); /* record what just ended */
    cuzk_engine_destroy(s.engine);
    while (s.jobs) {
        sjob *n = s.jobs->next;
        server_free_job(s.jobs);
        s.jobs = n;
    }
    pthread_cond_destroy(&s.published);
    pthread_mutex_destroy(&s.mu);
    return CUZK_OK;
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
