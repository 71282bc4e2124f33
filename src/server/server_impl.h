/* The daemon's insides, shared by its files (include/cuzk.h "daemon" is the
 * API, docs/api.md the protocol):
 *
 *   server.c   cuzk_serve: start, recovery, the signal wait, shutdown; the
 *              table of jobs and a job's JSON
 *   journal.c  the local store of jobs (job_store): the state directory's
 *              durable writes, the request digest behind idempotency,
 *              recovery after a restart, and the watcher thread that
 *              journals results as the engine ends jobs
 *   cluster.c  the shared store: jobs on a PostgreSQL queue (pgqueue.c)
 *   api.c      the HTTP routes and their replies (libmicrohttpd), over
 *              whichever store the daemon has
 *   paths.c    what a client can make the daemon open (--key-dir, ...)
 *   auth.c     who may talk to it (--token-file, --tls-cert)
 *   src/engine/stats.c  the stats /v1/status and /metrics render
 *
 * Durability: an accepted job is written to the state directory (request,
 * and the witness when it came as bytes) and fsync'd before the 202; its
 * result is written the same way when it ends. On start, every request
 * without a result is submitted again, so a crash loses no accepted job.
 * Results stay until their TTL or a DELETE.
 *
 * Connections (docs/security.md): libmicrohttpd polls every connection
 * with epoll from a small pool of threads (--http-threads), so an idle or
 * slow connection costs a socket and a few KiB, not a thread; the
 * connection limit is far above what long polls need, each address gets a
 * share of it, idle connections close after --idle-timeout, and request
 * bodies buffered at once have one budget (--max-body-total). A long poll
 * does not hold a thread either: it is parked (MHD_suspend_connection) in
 * `parked`, and is resumed when its store says its job changed
 * (jobs_changed), its wait ends, or the daemon stops.
 *
 * Threads: the HTTP pool; one watcher thread moves finished jobs from the
 * engine to the journal and wakes parked long polls; after a restart, a
 * checker thread verifies the kept proofs (its own thread: a slow check
 * must not hold results back from the journal). The table of jobs has
 * its own mutex; the engine is thread-safe. No file is written, fsync'd or removed under that mutex
 * (a slow disk would stall every request): a request reserves its slot,
 * is journaled unlocked, then published; a result is journaled unlocked,
 * then published (the journal store's submit, journal_sweep).
 *
 * Idempotency: a POST may carry the client's request id; the id and a
 * digest of the request are journaled in the job's .req and kept with the
 * job's record, so a retry whose first answer was lost (even across a
 * crash) gets the job it created instead of a second one, and the same id
 * on another request is a 409. An id being journaled is listed in
 * `pending`, so that a retry racing its first attempt waits for it.
 *
 * Built only with libmicrohttpd and jansson (CUZK_HAVE_SERVER). */
#ifndef CUZK_SERVER_IMPL_H
#define CUZK_SERVER_IMPL_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"
#include "../util/progress.h"
#include "../util/url_id.h"

#define SERVER_MAX_JOBS_TABLE 65536
#define REQUEST_DIGEST_LEN 32 /* SHA-256 */

/* A job the engine finished whose result is not durable yet (its .res
 * could not be written: a full or read-only disk). The watcher holds it
 * here and writes it again at each sweep; until then the job is shown as
 * running, never as done. */
typedef struct pending_end {
    cuzk_job_info info;
    char *proof, *pub, *vk; /* when done */
} pending_end;

typedef struct sjob {
    char id[33];                /* 32 hex digits */
    char request_id[REQUEST_ID_MAX + 1];              /* the client's; "" when it gave none */
    unsigned char request_digest[REQUEST_DIGEST_LEN]; /* journal_request_digest(): a retry's or another request's */
    unsigned long long eid;     /* the engine's id */
    int priority;
    int ended;                  /* result known (state below) */
    cuzk_job_info info;         /* last known */
    char *proof, *pub;          /* when done */
    char vk[65];                /* the hex SHA-256 of its proof's verification key (state/vks/), "" none */
    char request_hash[65];      /* the hex SHA-256 of its .req as journaled: its .res names it (bound to it) */
    double t_end;               /* monotonic, for the TTL */
    int uploaded;               /* its witness is journaled (<id>.wtns): removed once its result is */
    unsigned uploaded_parts;    /* a job of partitions with uploaded witnesses: <id>.<k>.wtns, k < this */
    int removing;               /* its files are being removed (DELETE or expiry): no one else frees it */
    double retry_at;            /* an expiry whose removal failed is tried again from then */
    pending_end *pend;          /* ended, result not yet durable (the watcher's alone); with
                                   unchecked, the stored result waiting for its check (the checker's) */
    int unchecked;              /* a result kept across a restart whose proof the checker has not
                                   checked yet: shown running until it has (journal_checker_main) */
    unsigned waiters;           /* long polls parked on it (the store's watch): the checker takes such jobs first */
    struct sjob *next;
} sjob;

/* One connection's request: its body as it arrives, and when it is a
 * long poll waiting for its job, its place among the parked ones (under
 * the table's lock). */
typedef struct api_conn {
    char *data;
    size_t len;
    size_t counted;   /* bytes of the body counted in server.body_bytes */
    int too_large;    /* the body passed --max-body: answered 413 */
    int too_busy;     /* the bodies buffered at once passed --max-body-total: 503 */
    struct MHD_Connection *c;
    /* a long poll: its wait, the state it waits to leave (-1: to end) */
    int polling;
    double deadline;
    int from;
    int parked;       /* suspended, in server.parked */
    int suspended;    /* suspended and not yet handled again (server.n_suspended) */
    char job[33];     /* while parked: the job it waits on */
    struct api_conn *prev_parked, *next_parked;
} api_conn;

/* A POST with a request id between its reservation and its publication
 * (both under the table's lock; the journaling between them is not). */
typedef struct pending_request {
    const char *request_id;
    const unsigned char *digest;
    struct pending_request *next;
} pending_request;

#define SERVER_MAX_DIRS 64 /* --key-dir, --witness-dir: each */

typedef struct conn_track conn_track; /* conns.c: a connection and its phase's deadline */
enum { PATHS_KEY = 0, PATHS_WITNESS = 1 };

struct cluster; /* cluster.c: the daemon on a PostgreSQL job queue (docs/cluster.md) */

typedef struct server {
    cuzk_serve_config cfg;
    struct cluster *cluster; /* NULL: the local journal */
    const struct job_store *store; /* where the jobs live: journal_store or queue_store */
    /* Who hears, under mu, that jobs changed: the HTTP layer's parked long
     * polls (server.c sets api.c's function before any thread starts), so
     * the stores never call up into it. id: that job changed (its state,
     * its end, or it is about to be freed); "": any may have; NULL: none,
     * only waits may be over. Each call with an id counts in `changes`. */
    void (*jobs_changed)(struct server *s, const char *id);
    unsigned long long changes;
    char *token;                     /* --token-file's token, NULL: none */
    unsigned char token_digest[32];  /* its SHA-256, what requests are compared with */
    pthread_mutex_t auth_mu;         /* token and digest, swapped by SIGHUP */
    char *tls_cert, *tls_key;        /* PEM, NULL: plain HTTP */
    char *dirs[2][SERVER_MAX_DIRS]; /* PATHS_KEY, PATHS_WITNESS: the operator's directories, resolved */
    unsigned n_dirs[2];
    cuzk_engine *engine;
    char jobs_dir[4096];
    char vks_dir[4096];       /* verification keys of stored proofs, by SHA-256 */
    char journal_error[400];  /* why the last journal write failed; "" while writes succeed */
    /* key reads and uploads logged as they go (server_progress): a few
     * at once, each its own stage */
    pthread_mutex_t progress_mu;
    progress_meter progress[4];
    pthread_mutex_t mu;
    sjob *jobs;
    unsigned n_jobs;
    unsigned n_reserved; /* accepted requests being journaled, not yet in jobs */
    pending_request *pending;  /* those of them with a request id */
    pthread_cond_t published;  /* a pending request left `pending` */
    unsigned long long duplicates; /* POSTs answered with the job of an earlier one */
    volatile sig_atomic_t stop;
    int stopping; /* shutting down: jobs cancelled now stay journaled, to resume */
    /* kept results whose proofs the checker verifies after a restart (its
     * alone once it runs): still to check, checked, failed, the time it took */
    unsigned n_unchecked, n_checked, n_check_failed;
    double check_seconds;
    pthread_t watcher, checker;
    int checker_started;
    api_conn *parked;      /* long polls waiting (suspended) */
    unsigned n_parked;
    unsigned n_suspended;  /* parked or woken but not yet answered: none may be left at MHD_stop_daemon */
    unsigned long long body_bytes; /* request bodies buffered now (atomic) */
    /* journal_probe: when it looks next, and whether its last look failed
     * (then journal_error is its note) */
    double probe_at;
    int probe_failed;
    /* conns.c: the open connections, their reaper */
    pthread_mutex_t conns_mu;
    conn_track *conns;
    unsigned n_conns;
    unsigned long long conns_reaped; /* closed past their deadline, or pruned near the limit */
    pthread_t reaper;
    int reaper_started;
} server;

/* For calls whose status does not matter here (the job may have ended
 * meanwhile): warn_unused_result is not silenced by a (void) cast. */
static inline void server_ignore_status(int rc)
{
    (void)rc;
}

/* server.c */
sjob *server_find_job(server *s, const char *id);
void server_free_job(sjob *j);
/* A fresh job id: 32 hex digits. 0, or -1 when the random source fails. */
int server_new_id(char out[33]);
/* A job as GET /v1/proofs/{id} answers it (and its .res records it). */
json_t *server_job_json(const sjob *j);
/* One message to the operator, through cuzk_serve_config.log (the
 * library prints nothing itself). */
void server_log(const server *s, cuzk_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* auth.c: who may talk to the daemon */
int auth_init(server *s, cuzk_error *err); /* reads the token and TLS files */
/* SIGHUP: the token file read again (*reloaded = 1); on failure the old
 * token stays and err says why. */
int auth_reload(server *s, int *reloaded, cuzk_error *err);
void auth_free(server *s);
/* Whether a request may go on: no token configured, GET /healthz, or the
 * right bearer token (compared in constant time). */
int auth_allowed(const server *s, struct MHD_Connection *c, const char *url, const char *method);

/* paths.c: what a client can make the daemon open */
int paths_init(server *s, cuzk_error *err); /* resolves cfg's directories (each must exist) */
void paths_free(server *s);
/* A path a client named for a key or a witness (PATHS_*): 0 with the
 * resolved path to open in out, or the HTTP status (400, 403, 404) with
 * msg saying what is wrong (the same for a file outside the directories
 * whether or not it exists). */
unsigned paths_check(const server *s, int kind, const char *path, char *out, size_t out_len, char *msg,
                     size_t msg_len);

/* A request's witnesses, in one of the forms POST /v1/proofs takes
 * (docs/api.md): one proof's (witness_path, or witness's decoded bytes),
 * or a job of partitions': witness_paths, witnesses (each decoded),
 * or partitions made from the key's circuit (partitions, from partition). */
typedef struct request_witness {
    const char *path;
    unsigned char *bytes;
    size_t len;
    const char **paths;      /* n of them */
    unsigned char **list;    /* n decoded uploads */
    size_t *list_len;
    unsigned n;
    unsigned generated, first; /* partitions made from the circuit, from `first` */
} request_witness;

/* Where jobs live, as the HTTP layer sees them: the journal (journal.c,
 * the state directory, one node) or the queue (cluster.c, PostgreSQL, many
 * nodes). api.c calls these and never asks which; each store keeps its own
 * table of jobs and hands them to the engine through journal_submit. */
enum {
    STORE_NEW,        /* submit: stored under the new id */
    STORE_DUPLICATE,  /* submit: the request id and request of an earlier POST: its job's id and state */
    STORE_CONFLICT,   /* submit: the request id names another request (err says which) */
    STORE_TOO_LARGE,  /* submit: its uploads pass what the store takes (err names the limit) */
    STORE_DELETED,    /* remove: an ended job forgotten */
    STORE_CANCELLING, /* remove: a job not ended, cancelled */
    STORE_DELETING    /* remove: an ended job another removal is at */
};
typedef struct job_store {
    /* a validated request: its record (journal_record's; the store
     * adds its id) and its uploads (w), stored durably and handed to a
     * prover. CUZK_OK with *outcome one of the submit outcomes and id the
     * job's (new or earlier; *state its state), or BUSY (full), IO (the
     * store cannot be written), NO_MEMORY, or the engine's refusal. */
    int (*submit)(server *s, json_t *record, const request_witness *w, const char *request_id,
                  const unsigned char *digest, char id[33], int *outcome, int *state, cuzk_error *err);
    /* A job as GET answers it (*out), and its state; NOT_FOUND, or IO when
     * the store cannot be read. */
    int (*job)(server *s, const char *id, json_t **out, int *state, cuzk_error *err);
    /* DELETE: *outcome one of the remove outcomes; NOT_FOUND, BUSY (its
     * result is being written or checked: in a moment), IO. */
    int (*remove)(server *s, const char *id, int *outcome, cuzk_error *err);
    /* The store's own part of /v1/status (JSON, malloc'd), under `name`;
     * NULL: none. */
    const char *name;
    int (*stats)(server *s, char **json, cuzk_error *err);
    /* That part as Prometheus lines, appended to t (cap bytes in all). */
    void (*metrics)(const char *stats_json, char *t, size_t cap);
    /* Under the table's lock: a long poll starts (+1) or stops (-1)
     * waiting on job id. NULL: the store has no use for it. */
    void (*watch)(server *s, const char *id, int delta);
} job_store;
extern const job_store journal_store; /* journal.c */
extern const job_store queue_store;   /* cluster.c */

/* journal.c */
/* Writes DIR/jobs/name atomically and durably: temporary file, fsync,
 * rename, fsync of the directory. 0 or -1 (errno set). */
int journal_write_durable(const server *s, const char *name, const void *data, size_t len);
/* The same into another directory of the state (vks). */
int journal_write_in(const char *dir, const char *name, const void *data, size_t len);
/* Removes a job's files (.req first: without it the rest is an orphan,
 * removed at the next start). 0, or -1 with errno of the first failure
 * (a missing file is no failure). */
int journal_remove_job(const server *s, const char *id, unsigned uploaded_parts);
/* The name of a job's journaled upload: <id>.wtns (k < 0), or partition
 * k's <id>.<k>.wtns. */
void journal_upload_name(char *out, size_t cap, const char *id, int k);
/* An ended job marked removing (by its caller, under the lock, which it
 * then released): its files removed, then its record freed; when a file
 * cannot be removed the job stays as it was and the journal's state says
 * why (what). 0, or -1 with errno. */
int journal_drop_job(server *s, sjob *j, const char *what);
/* Under the table's lock: notes a journal write's failure (what and
 * errno) for /healthz and /v1/status, or its success (what NULL). */
void journal_note(server *s, const char *what, int err_no);
/* What tells a retry from another request under the same request id. */
void journal_request_digest(const char *key_path, const char *key_id, const char *r1cs_path,
                            const request_witness *w, int priority, unsigned char out[REQUEST_DIGEST_LEN]);
void journal_digest_hex(const unsigned char d[REQUEST_DIGEST_LEN], char out[2 * REQUEST_DIGEST_LEN + 1]);
/* A digest's 64 lower-case hex digits back into bytes: 0, or -1 unless exactly that. */
int journal_digest_from_hex(const char *hex, unsigned char d[REQUEST_DIGEST_LEN]);
void journal_free_pending(pending_end *p);
/* The hex SHA-256 of len bytes (a journaled request's: journal_hash). */
void journal_hash(const void *data, size_t len, char out[65]);
/* Whether the state directory can take work: every JOURNAL_PROBE_SECONDS
 * (between, the last answer) it is looked at (read-only, less than
 * JOURNAL_MIN_FREE bytes free, a small file written durably and removed);
 * a failure is noted for /healthz (journal_note) until a look succeeds.
 * 1 or 0. Called by the watcher, or a cluster node before it claims. */
#define JOURNAL_PROBE_SECONDS 2.0
#define JOURNAL_MIN_FREE (64ull << 20) /* a request and a few results, uploads aside */
int journal_probe(server *s);
/* A request's record, its one stored form (the journal's .req, the
 * queue's row) from the POST's body and witness: the key (path or id, the
 * circuit), the witness (a path, paths, partitions of the key's circuit,
 * or uploads named by their count: written beside it or stored with it),
 * the priority, the request id and its digest. NULL: out of memory.
 * journal_submit reads it back. */
json_t *journal_record(json_t *req, const request_witness *w, int prio, const char *request_id,
                       const unsigned char *digest);
/* Submits a request's record to the engine. */
int journal_submit(server *s, const char *id, json_t *req, unsigned long long *eid, cuzk_error *err);
/* Removes every uploaded witness in the state directory (a cluster node's
 * at its start: they belonged to the claims of a process that is gone);
 * returns how many. */
unsigned journal_remove_uploads(const server *s);
/* Resubmits journaled requests without results; loads kept results. */
int journal_recover(server *s, unsigned *resubmitted, cuzk_error *err);
/* One pass of the watcher: ended jobs into the journal and the table,
 * expired results out. */
void journal_sweep(server *s);
void *journal_watcher_main(void *arg); /* journal_sweep every 5 ms until s->stop */
/* The checker: the kept proofs verified, a batch at a time (those a client
 * waits on first), until none is left or s->stop. */
void *journal_checker_main(void *arg);

/* cluster.c: with --queue, the jobs live in PostgreSQL (src/server/
 * pgqueue.h): any node takes them, proves those it claims, and answers
 * for every one of them. */
int cluster_start(server *s, cuzk_error *err);
/* Stops claiming; claims not ended are given back (queued again). */
void cluster_stop(server *s);

/* api.c: libmicrohttpd's callbacks */
/* Under the table's lock: resumes the parked long polls of job id ("":
 * every one; NULL: none), and those whose wait is over or all when the
 * daemon stops; each looks at its job again (server.jobs_changed). */
void api_jobs_changed(server *s, const char *id);
/* conns.c: each connection's phase and deadline (the file says why) */
#define CONNS_MIN_BODY_RATE (256.0 * 1024) /* bytes a second a request body must keep up */
void conns_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode toe);
/* a request's headers read: its body of body_bytes (0: none) comes next */
void conns_headers_read(server *s, struct MHD_Connection *c, unsigned long long body_bytes);
void conns_busy(server *s, struct MHD_Connection *c);     /* the request read: no deadline */
void conns_answered(server *s, struct MHD_Connection *c); /* kept alive: the next request's headers */
int conns_start(server *s);                               /* the reaper thread; 0 or -1 */
void conns_stop(server *s);                               /* after s->stop is set */

enum MHD_Result api_handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                            const char *version, const char *upload, size_t *upload_size, void **con_cls);
void api_request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe);

#endif
