/* The daemon's connections, each with a deadline for the phase it is in
 * (docs/security.md): a request's headers must arrive within
 * --header-timeout of the connection's start (--idle-timeout of the last
 * answer on a kept-alive one), its body at CONNS_MIN_BODY_RATE at least;
 * a request being handled (or a parked long poll) has none. libmicrohttpd
 * closes only silent connections, so one that sends a byte a second would
 * otherwise hold its slot for ever. A reaper thread closes those past
 * their deadline, and when the connections near --max-connections it
 * closes the oldest still sending headers, so that /healthz and real
 * requests find room under a flood of slow ones.
 *
 * A connection is closed by shutdown(2) on its socket: libmicrohttpd then
 * reads its end and closes it as any other. The list's lock is held from
 * the look to the shutdown, and a connection leaves the list (CLOSED,
 * under the lock) before libmicrohttpd closes its socket, so the
 * descriptor shut is always that connection's. */
#include "../../include/cuzk.h"

#if CUZK_HAVE_SERVER

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "server_impl.h"

/* headers and a body: tracked; BUSY: being handled, or waiting for its job */
enum { CONN_HEADERS, CONN_BODY, CONN_BUSY };

struct conn_track {
    int fd;
    int phase;
    double since;    /* the phase's start */
    double deadline; /* 0: none */
    struct conn_track *prev, *next;
};

void conns_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
    server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn_track *t = ci ? calloc(1, sizeof(*t)) : NULL;
        *socket_context = t;
        if (!t)
            return; /* untracked: libmicrohttpd's idle timeout alone */
        t->fd = ci->connect_fd;
        t->phase = CONN_HEADERS;
        t->since = cuzk_now();
        t->deadline = t->since + s->cfg.header_timeout;
        pthread_mutex_lock(&s->conns_mu);
        t->next = s->conns;
        if (s->conns)
            s->conns->prev = t;
        s->conns = t;
        s->n_conns++;
        pthread_mutex_unlock(&s->conns_mu);
        return;
    }
    conn_track *t = *socket_context;
    if (!t)
        return;
    pthread_mutex_lock(&s->conns_mu);
    if (t->prev)
        t->prev->next = t->next;
    else
        s->conns = t->next;
    if (t->next)
        t->next->prev = t->prev;
    s->n_conns--;
    pthread_mutex_unlock(&s->conns_mu);
    free(t);
    *socket_context = NULL;
}

static conn_track *track_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void set_phase(server *s, struct MHD_Connection *c, int phase, double deadline_in)
{
    conn_track *t = track_of(c);
    if (!t)
        return;
    double now = cuzk_now();
    pthread_mutex_lock(&s->conns_mu);
    t->phase = phase;
    t->since = now;
    t->deadline = deadline_in > 0 ? now + deadline_in : 0;
    pthread_mutex_unlock(&s->conns_mu);
}

void conns_headers_read(server *s, struct MHD_Connection *c, unsigned long long body_bytes)
{
    if (!body_bytes)
        set_phase(s, c, CONN_BUSY, 0);
    else
        set_phase(s, c, CONN_BODY, s->cfg.header_timeout + (double)body_bytes / CONNS_MIN_BODY_RATE);
}

void conns_busy(server *s, struct MHD_Connection *c)
{
    set_phase(s, c, CONN_BUSY, 0);
}

void conns_answered(server *s, struct MHD_Connection *c)
{
    set_phase(s, c, CONN_HEADERS, s->cfg.idle_timeout);
}

/* Under the lock: closes t (once). */
static void close_track(server *s, conn_track *t)
{
    shutdown(t->fd, SHUT_RDWR);
    t->deadline = 0;
    t->phase = CONN_BUSY; /* closing: neither reaped nor pruned again */
    s->conns_reaped++;
}

static void *reaper_main(void *arg)
{
    server *s = arg;
    while (!s->stop) {
        struct timespec nap = {0, 100 * 1000 * 1000};
        nanosleep(&nap, NULL);
        double now = cuzk_now();
        pthread_mutex_lock(&s->conns_mu);
        unsigned open = s->n_conns;
        for (conn_track *t = s->conns; t; t = t->next)
            if (t->deadline && now > t->deadline) {
                close_track(s, t);
                open--;
            }
        /* near the limit: the oldest connections still sending headers
         * (for a quarter second at least: a client's take milliseconds)
         * go, down to three quarters of it */
        unsigned high = s->cfg.max_connections - s->cfg.max_connections / 8, low = s->cfg.max_connections * 3 / 4;
        while (open > high) {
            conn_track *oldest = NULL;
            for (conn_track *t = s->conns; t; t = t->next)
                if (t->phase == CONN_HEADERS && now - t->since >= 0.25 && (!oldest || t->since < oldest->since))
                    oldest = t;
            if (!oldest)
                break;
            close_track(s, oldest);
            high = low;
            open--;
        }
        pthread_mutex_unlock(&s->conns_mu);
    }
    return NULL;
}

int conns_start(server *s)
{
    if (pthread_create(&s->reaper, NULL, reaper_main, s) != 0)
        return -1;
    s->reaper_started = 1;
    return 0;
}

void conns_stop(server *s)
{
    if (s->reaper_started)
        pthread_join(s->reaper, NULL); /* s->stop is set */
    s->reaper_started = 0;
}

#endif
