/* A loopback TCP relay with a bad network between its two sides, for the
 * daemon's tests: what a daemon cannot be made to do on cue.
 *
 * usage: flaky_proxy UPSTREAM_PORT DROP
 *
 * Listens on a free port of 127.0.0.1, prints "port N" and relays every
 * connection (up to 64 at once) to 127.0.0.1:UPSTREAM_PORT.
 *   - DROP: the first DROP connections lose their answer: each is closed
 *     as soon as the upstream starts to answer (the request was delivered
 *     and handled; tests/test_submit.sh's lost POST answer).
 *   - SIGUSR1 cuts the path: nothing is relayed either way and nothing is
 *     closed (a stalled route: both ends' TCP sees no error, as when a
 *     link drops packets; tests/test_cluster.sh's node cut off from its
 *     database). SIGUSR2 restores it; what was held back is relayed then.
 * Says what it does on stderr. Runs until killed, or for an hour. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PAIRS 64

typedef struct pair {
    int client, upstream; /* -1: closed */
    int drop;             /* close at the upstream's first byte */
    int client_done;      /* the client shut its sending side: the answer still goes back */
} pair;

static volatile sig_atomic_t cut;

static void on_signal(int sig)
{
    cut = sig == SIGUSR1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int connect_upstream(unsigned port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void close_pair(pair *p)
{
    if (p->client >= 0)
        close(p->client);
    if (p->upstream >= 0)
        close(p->upstream);
    *p = (pair){.client = -1, .upstream = -1};
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: flaky_proxy UPSTREAM_PORT DROP\n");
        return 2;
    }
    unsigned upstream_port = (unsigned)strtoul(argv[1], NULL, 10);
    long drop = strtol(argv[2], NULL, 10);
    if (upstream_port < 1 || upstream_port > 65535 || drop < 0) {
        fprintf(stderr, "flaky_proxy: bad UPSTREAM_PORT or DROP\n");
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    alarm(3600);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 64) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0) {
        perror("flaky_proxy: listen");
        return 1;
    }
    printf("port %u\n", (unsigned)ntohs(a.sin_port));
    fflush(stdout);
    static pair pairs[MAX_PAIRS];
    for (int i = 0; i < MAX_PAIRS; i++)
        pairs[i].client = pairs[i].upstream = -1;
    static char buf[65536];
    long accepted = 0;
    int was_cut = 0;
    for (;;) {
        if (cut != was_cut) {
            was_cut = cut;
            fprintf(stderr, "flaky_proxy: the path is %s\n", was_cut ? "cut" : "restored");
        }
        /* cut: only new connections are taken (and held); nothing moves */
        struct pollfd p[1 + 2 * MAX_PAIRS];
        p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < MAX_PAIRS; i++) {
            p[1 + 2 * i] = (struct pollfd){.fd = was_cut || pairs[i].client_done ? -1 : pairs[i].client, .events = POLLIN};
            p[2 + 2 * i] = (struct pollfd){.fd = was_cut ? -1 : pairs[i].upstream, .events = POLLIN};
        }
        int r = poll(p, 1 + 2 * MAX_PAIRS, 200);
        if (r < 0 && errno != EINTR) {
            perror("flaky_proxy: poll");
            return 1;
        }
        if (r <= 0)
            continue;
        if (p[0].revents & POLLIN) {
            int c = accept(lfd, NULL, NULL), slot = -1;
            for (int i = 0; c >= 0 && i < MAX_PAIRS && slot < 0; i++)
                if (pairs[i].client < 0)
                    slot = i;
            int u = c >= 0 && slot >= 0 ? connect_upstream(upstream_port) : -1;
            if (u < 0) {
                if (c >= 0)
                    close(c);
            } else {
                pairs[slot] = (pair){.client = c, .upstream = u, .drop = accepted < drop};
                accepted++;
            }
        }
        for (int i = 0; i < MAX_PAIRS; i++) {
            pair *q = &pairs[i];
            if (p[1 + 2 * i].revents && q->client >= 0) {
                ssize_t n = recv(q->client, buf, sizeof(buf), 0);
                if (n == 0) { /* the client is done sending */
                    shutdown(q->upstream, SHUT_WR);
                    q->client_done = 1;
                } else if (n < 0 || write_all(q->upstream, buf, (size_t)n) != 0)
                    close_pair(q);
            }
            if (p[2 + 2 * i].revents && q->upstream >= 0 && q->client >= 0) {
                ssize_t n = recv(q->upstream, buf, sizeof(buf), 0);
                if (n > 0 && q->drop)
                    fprintf(stderr, "flaky_proxy: dropped the answer on connection %d\n", i + 1);
                if (n <= 0 || q->drop || write_all(q->client, buf, (size_t)n) != 0)
                    close_pair(q);
            }
        }
    }
}
