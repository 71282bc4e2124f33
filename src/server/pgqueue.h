/* A job queue shared by many daemons in PostgreSQL (docs/cluster.md):
 * the jobs, their leases and the nodes in three tables of a schema the
 * daemon creates and migrates itself (versioned), claimed by priority then
 * age with FOR UPDATE SKIP LOCKED, each claim a lease that the claiming node
 * renews while it proves and that every write of the result checks
 * (fencing: a node that lost its lease writes nothing over the new
 * owner's). State changes are announced with NOTIFY for long polls on any
 * node.
 *
 * One pgq is one connection: a thread's own (libpq connections are not
 * shared between threads). Every function returns a cuzk_status with the
 * message in err; a broken connection is CUZK_ERR_IO and is re-established
 * by the next call. Built only with libpq (CUZK_HAVE_PG). */
#ifndef CUZK_SERVER_PGQUEUE_H
#define CUZK_SERVER_PGQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk_engine.h" /* the job states and priorities its rows hold */

#define PGQ_SCHEMA_VERSION 2
#define PGQ_DIGEST_LEN 32 /* the request digest (server_impl.h's REQUEST_DIGEST_LEN) */
#define PGQ_CHANNEL "cuzk_jobs" /* NOTIFY channel: payload "<id> <state>" */

typedef struct pgq pgq;

/* Connects to conninfo (a libpq connection string or postgresql:// URI),
 * brings the schema to PGQ_SCHEMA_VERSION (under an advisory lock: nodes
 * starting together migrate once; a newer schema than this build knows is
 * refused) and registers `node` (1 to 63 letters, digits, '.', '_', '-').
 * A statement the server has not answered in timeout_s seconds (>= 1) ends
 * with CUZK_ERR_IO and the connection is made again; connecting, TCP
 * keepalives and unacknowledged writes are bounded by about as much, unless
 * conninfo sets them itself. */
int pgq_open(pgq **out, const char *conninfo, const char *node, double timeout_s, cuzk_error *err);
void pgq_close(pgq *q);

typedef struct pgq_new_job {
    const char *id;              /* 32 hex digits */
    const char *request_id;      /* the client's, or NULL */
    const unsigned char *digest; /* PGQ_DIGEST_LEN bytes with a request id */
    int priority;                /* cuzk_priority */
    const char *request_json;    /* what the job proves (the daemon's journaled request) */
    const unsigned char *witness; /* an uploaded witness, or NULL */
    size_t witness_len;
    int max_attempts;            /* >= 1 */
    unsigned max_queued;         /* refused (CUZK_ERR_BUSY) with this many queued; 0: no bound */
} pgq_new_job;

enum { PGQ_NEW = 0, PGQ_DUPLICATE = 1, PGQ_CONFLICT = 2 };

/* Stores a queued job and announces it. A request id stored before gives
 * *known = PGQ_DUPLICATE (the same digest: nothing stored) or PGQ_CONFLICT
 * (another request), with that job's id in existing_id; else PGQ_NEW.
 * CUZK_ERR_BUSY when max_queued jobs wait already (counted on this
 * connection at most every half second, and again while it is reached:
 * what arrives in between may pass it). */
int pgq_submit(pgq *q, const pgq_new_job *job, int *known, char existing_id[33], cuzk_error *err);

typedef struct pgq_claimed {
    char id[33];
    int64_t token; /* the lease's fencing token */
    int priority, attempt;
    char *request_json;      /* malloc'd */
    unsigned char *witness;  /* malloc'd, or NULL */
    size_t witness_len;
} pgq_claimed;

/* Claims the oldest queued job of the highest priority whose keys this
 * node holds (every one among keys[0..n_keys): see pgq_wanted_keys), for
 * lease_s seconds. CUZK_OK, or CUZK_ERR_NOT_FOUND when none is queued. */
int pgq_claim(pgq *q, double lease_s, const char *const *keys, size_t n_keys, pgq_claimed *out, cuzk_error *err);
void pgq_claimed_free(pgq_claimed *c);

/* Renews a claim's lease: CUZK_OK; CUZK_ERR_CANCELLED when a cancel was
 * asked for (the lease is renewed: end the attempt as cancelled);
 * CUZK_ERR_NOT_FOUND when the lease is lost (it expired and the job was
 * queued again, or is another node's now): stop and write nothing. */
int pgq_renew(pgq *q, const char *id, int64_t token, double lease_s, cuzk_error *err);

/* Ends an attempt, if token still holds the lease: CUZK_JOB_DONE with
 * result_json, CUZK_JOB_CANCELLED, or CUZK_JOB_FAILED with reason (kept with
 * the job's reasons; queued again until its max_attempts, then failed).
 * CUZK_ERR_NOT_FOUND when the lease was lost: nothing is written. */
int pgq_finish(pgq *q, const char *id, int64_t token, int state, const char *result_json, const char *reason,
               cuzk_error *err);

/* Gives a claim back (this node stops: the job was not proved): queued
 * again, the attempt not counted. CUZK_ERR_NOT_FOUND when the lease was
 * lost. */
int pgq_release(pgq *q, const char *id, int64_t token, cuzk_error *err);

/* Forgets the jobs that ended more than ttl_s seconds ago; *n how many. */
int pgq_purge(pgq *q, double ttl_s, unsigned *n, cuzk_error *err);

/* The queue at a glance, as JSON (*json malloc'd): jobs queued by priority,
 * running, ended by state, those claimed more than once, the soonest lease
 * expiry, the nodes with their last heartbeat's age and info, and the key
 * registry (the first 100 paths with their digests). */
int pgq_stats(pgq *q, char **json, cuzk_error *err);

/* Every running job whose lease has expired goes back to the queue (or
 * fails, past its attempts), its reason "the lease of node N expired";
 * *n how many. */
int pgq_expire(pgq *q, unsigned *n, cuzk_error *err);

typedef struct pgq_job {
    char id[33];
    int state, priority, attempts, max_attempts;
    char node[64];      /* the node holding (or that last held) it, "" none */
    char *result_json;  /* malloc'd, or NULL */
    char *errors_json;  /* malloc'd: a JSON array of every failed attempt's reason */
} pgq_job;

/* CUZK_ERR_NOT_FOUND for an unknown id. */
int pgq_get(pgq *q, const char *id, pgq_job *out, cuzk_error *err);
void pgq_job_free(pgq_job *j);

/* A queued job is cancelled at once; a running one is marked, and its node
 * ends it at its next renewal. *state: the job's state after. */
int pgq_cancel(pgq *q, const char *id, int *state, cuzk_error *err);

/* Forgets an ended job (CUZK_ERR_BUSY while it is queued or running). */
int pgq_delete(pgq *q, const char *id, cuzk_error *err);

/* The node's heartbeat (info: JSON, e.g. its GPUs; may be NULL). */
int pgq_heartbeat(pgq *q, const char *info_json, cuzk_error *err);
/* Takes this connection's node name for a process (instance: its random
 * token, kept in the node's info and heartbeats): *taken 1 when the name
 * is free, its node stopped cleanly, or its last heartbeat is older than
 * stale_s (a node killed); else 0 (a live node has it) with *age the
 * seconds since that node's heartbeat. */
int pgq_node_take(pgq *q, const char *instance, double stale_s, int *taken, double *age, cuzk_error *err);
/* A clean stop: the name is free for the next start at once. */
int pgq_node_stopped(pgq *q, const char *instance, cuzk_error *err);

/* LISTEN to PGQ_CHANNEL on this connection, then wait up to timeout_s for
 * one notification: CUZK_OK with its payload, CUZK_ERR_BUSY on timeout. */
int pgq_listen(pgq *q, cuzk_error *err);
int pgq_wait(pgq *q, double timeout_s, char *payload, size_t n, cuzk_error *err);

/* The keys of a job: its key's path and its circuit's (a .params key's
 * .r1cs), or "id:" and the id of a key the nodes preload. A node claims a
 * job only when it holds every key of it: the paths checked against the
 * digests in the queue's registry (pgq_key_register), the ids loaded. */
#define PGQ_KEY_DIGEST_LEN 32 /* file_digest.h's FILE_DIGEST_LEN */
#define PGQ_WANTED_MAX_TEXT "256" /* keys a node meets a pass: 4,096 in 16 */

/* Keys that queued jobs need and `known` lacks, those of the most
 * urgent jobs first (*out malloc'd, free with pgq_strings_free; with
 * priority not NULL, *priority (free()) the highest priority of a job that
 * needs each): however many keys jobs name, a critical job's is among
 * them. At most PGQ_WANTED_MAX_TEXT. */
int pgq_wanted_keys(pgq *q, const char *const *known, size_t n_known, char ***out, int **priority, size_t *n_out,
                    cuzk_error *err);
void pgq_strings_free(char **list, size_t n);

/* A key path's digest as this node found it, registered unless one is
 * already (the first node to hash a path sets what every other must
 * find); *registered the registry's digest, node the node that set it. */
int pgq_key_register(pgq *q, const char *path, const unsigned char digest[PGQ_KEY_DIGEST_LEN], uint64_t size,
                     unsigned char registered[PGQ_KEY_DIGEST_LEN], char node[64], cuzk_error *err);

#endif
