/* cuzk's daemon, `cuzk serve` (part of libcuzk where it was built with
 * libmicrohttpd and jansson; cuzk.h's conventions hold). */
#ifndef CUZK_SERVE_H
#define CUZK_SERVE_H

#include "cuzk_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `cuzk serve` (src/server/, docs/api.md, docs/security.md): the engine
 * behind an HTTP/JSON API on host:port (port 0: a free one, printed on
 * stdout), journaling jobs in state_dir so that none is lost across a
 * crash. Blocks until SIGTERM or SIGINT, then stops taking requests,
 * answers long polls, leaves queued jobs journaled for the next start,
 * gives running proofs shutdown_grace seconds to finish (then leaves them
 * journaled too), and returns CUZK_OK. CUZK_ERR_UNSUPPORTED where the
 * build lacks libmicrohttpd or jansson. */
/* What the daemon says as it runs (started, listening, stopping, a
 * journal that cannot be written, a stored proof proved again): one line
 * each, without a newline, passed to cuzk_serve_config.log; the library
 * prints nothing itself. */
typedef enum cuzk_log_level { CUZK_LOG_ERROR = 0, CUZK_LOG_WARN = 1, CUZK_LOG_INFO = 2 } cuzk_log_level;
typedef void (*cuzk_log_fn)(void *arg, cuzk_log_level level, const char *message);

typedef struct cuzk_serve_config {
    const char *host;       /* an IPv4 address, e.g. "127.0.0.1" */
    unsigned port;
    const char *state_dir;  /* created if missing */
    cuzk_engine_config engine;
    unsigned long long max_body; /* request bodies; 0: 256 MiB */
    double result_ttl;           /* seconds results are kept; 0: 3600 */
    /* Connections: what one client can hold. */
    unsigned max_connections;          /* open at once; 0: 4096 */
    unsigned max_connections_per_ip;   /* from one address; 0: a quarter of max_connections */
    double idle_timeout;               /* seconds a connection may be silent; 0: 30 */
    /* seconds a request's headers may take from a connection's start (a
     * kept-alive one's next request: idle_timeout); its body must then
     * arrive at 256 KiB/s at least. A connection past it is closed however
     * much it trickles. 0: 10 */
    double header_timeout;
    unsigned http_threads;             /* threads polling the connections; 0: 8 */
    unsigned long long max_body_total; /* request bodies buffered at once; 0: 4 x max_body, at least 1 GiB */
    double shutdown_grace;             /* seconds running proofs get to finish at SIGTERM; 0: 30; < 0: none */
    /* What a client can make the daemon open: key_path and witness_path
     * must lie in one of these directories (after resolving links);
     * without any, client paths are refused (uploaded witnesses and
     * preloaded key ids always work). allow_any_path: any file the daemon
     * can read (a trusted network only). */
    const char *const *key_dirs;
    unsigned n_key_dirs;
    const char *const *witness_dirs;
    unsigned n_witness_dirs;
    int allow_any_path;
    /* Authentication: a file holding the bearer token every request but
     * GET /healthz must carry (Authorization: Bearer TOKEN); TLS: a PEM
     * certificate (chain) and its key. Both are required when host is not
     * a loopback address. NULL: none. */
    const char *token_file;
    const char *tls_cert_file, *tls_key_file;
    /* Keys the operator loads at the start, key_ids[i] from key_paths[i]
     * (any readable file: the directories above bind clients only). */
    const char *const *key_ids;
    const char *const *key_paths;
    unsigned n_keys;
    /* Where its messages go (NULL: nowhere) and the callback's argument;
     * called from any of its threads, one message at a time. */
    cuzk_log_fn log;
    void *log_arg;
    /* key_r1cs_paths[i]: key_paths[i] is a
     * bellperson .params key of this circuit (cuzk_engine_key_load_params);
     * NULL (the array or an entry): a .zkey */
    const char *const *key_r1cs_paths;
    /* Many daemons on one PostgreSQL job queue
     * (docs/cluster.md). queue: a libpq connection string or
     * postgresql:// URI (NULL: the local journal in state_dir); node: this
     * daemon's name among them (NULL: the host name); lease: seconds a
     * claimed job is this node's without a renewal (0: 30); max_attempts:
     * claims before a job fails (0: 3); queue_max_witness: bytes of
     * uploaded witnesses a job may store in the database (0: 64 MiB; larger
     * ones go by path on storage the nodes share); queue_max_queued: jobs
     * waiting unclaimed beyond which a POST is refused with 429 (0:
     * 100,000). */
    const char *queue;
    const char *node;
    double lease;
    unsigned max_attempts;
    unsigned long long queue_max_witness;
    unsigned queue_max_queued;
} cuzk_serve_config;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_serve(const cuzk_serve_config *config, cuzk_error *err);
/* Whether the daemon is built in. */
CUZK_API int cuzk_has_server(void);
/* Whether the daemon can keep its jobs on a PostgreSQL queue
 * (cuzk_serve_config.queue; docs/cluster.md): built with libpq. */
CUZK_API int cuzk_has_queue(void);

#ifdef __cplusplus
}
#endif

#endif
