/* A hostile client for the daemon's tests (test_hostile.sh): opens many
 * TCP connections to HOST:PORT at once and holds them, to show that the
 * daemon still answers everyone else.
 *
 *   conn_flood HOST:PORT N MODE SECONDS [PATH] [--bind ADDR]
 *
 * MODE: idle  connects and sends nothing;
 *       slow  sends a request's first bytes, then one more byte a second;
 *       poll  sends GET PATH (a long poll) and waits for its answer.
 * --bind ADDR connects from that local address (127.0.0.2, ...: another
 * client to the daemon's per-address limit).
 *
 * Prints "ready opened=O refused=R" once every connection was tried, then
 * at the end (SECONDS passed, or in poll mode every answer came):
 *   done opened=O refused=R closed=C answered=A ok=K
 * closed: connections the daemon closed without an answer; answered: those
 * that got an HTTP answer; ok: answers with status 200. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct conn {
    int fd;
    int state; /* 0 open, 1 closed by the daemon, 2 answered */
    size_t got;
    char head[16];
} conn;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: conn_flood HOST:PORT N idle|slow|poll SECONDS [PATH] [--bind ADDR]\n");
    return 2;
}

static void send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv)
{
    const char *bind_addr = NULL, *pos[5] = {0};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bind") && i + 1 < argc)
            bind_addr = argv[++i];
        else if (npos < 5)
            pos[npos++] = argv[i];
        else
            return usage();
    }
    if (npos < 4)
        return usage();
    char host[64];
    const char *colon = strrchr(pos[0], ':');
    if (!colon || (size_t)(colon - pos[0]) >= sizeof(host))
        return usage();
    memcpy(host, pos[0], (size_t)(colon - pos[0]));
    host[colon - pos[0]] = 0;
    int port = atoi(colon + 1), n = atoi(pos[1]);
    const char *mode = pos[2], *path = pos[4] ? pos[4] : "/healthz";
    double hold = atof(pos[3]);
    if (n <= 0 || port <= 0 || (strcmp(mode, "idle") && strcmp(mode, "slow") && strcmp(mode, "poll")))
        return usage();
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)n + 64 ? (rlim_t)n + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    struct sockaddr_in from = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, host, &to.sin_addr) != 1 || (bind_addr && inet_pton(AF_INET, bind_addr, &from.sin_addr) != 1))
        return usage();
    conn *cs = calloc((size_t)n, sizeof(*cs));
    struct pollfd *pf = calloc((size_t)n, sizeof(*pf));
    int *which = calloc((size_t)n, sizeof(*which));
    if (!cs || !pf || !which)
        return 1;
    char request[4200];
    if (!strcmp(mode, "poll"))
        snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host);
    else
        snprintf(request, sizeof(request), "POST /v1/proofs HTTP/1.1\r\nHost: %s\r\nContent-Le", host);
    int opened = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        cs[i].fd = -1;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            refused++;
            continue;
        }
        if ((bind_addr && bind(fd, (struct sockaddr *)&from, sizeof(from)) != 0) ||
            connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0) {
            close(fd);
            refused++;
            continue;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        if (strcmp(mode, "idle"))
            send_all(fd, request);
        cs[i].fd = fd;
        opened++;
    }
    printf("ready opened=%d refused=%d\n", opened, refused);
    fflush(stdout);
    double t0 = now(), last_drip = t0;
    int closed = 0, answered = 0, ok = 0;
    while (now() - t0 < hold) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (cs[i].fd >= 0 && cs[i].state == 0) {
                pf[m].fd = cs[i].fd;
                pf[m].events = POLLIN;
                pf[m].revents = 0;
                which[m++] = i;
            }
        if (!m)
            break;
        if (poll(pf, (nfds_t)m, 100) < 0 && errno != EINTR)
            break;
        for (int k = 0; k < m; k++) {
            if (!pf[k].revents)
                continue;
            conn *c = &cs[which[k]];
            char buf[4096];
            ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
            if (r > 0) {
                size_t take = (size_t)r < sizeof(c->head) - 1 - c->got ? (size_t)r : sizeof(c->head) - 1 - c->got;
                memcpy(c->head + c->got, buf, take);
                c->got += take;
                if (c->state == 0 && c->got >= 12) {
                    c->state = 2;
                    answered++;
                    ok += !strncmp(c->head + 9, "200", 3);
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                if (c->state == 0) {
                    c->state = 1;
                    closed++;
                }
            }
        }
        if (!strcmp(mode, "slow") && now() - last_drip >= 1) { /* one more byte a second */
            last_drip = now();
            for (int i = 0; i < n; i++)
                if (cs[i].fd >= 0 && cs[i].state == 0)
                    send(cs[i].fd, "n", 1, MSG_NOSIGNAL);
        }
    }
    printf("done opened=%d refused=%d closed=%d answered=%d ok=%d\n", opened, refused, closed, answered, ok);
    for (int i = 0; i < n; i++)
        if (cs[i].fd >= 0)
            close(cs[i].fd);
    free(cs);
    free(pf);
    free(which);
    return 0;
}
