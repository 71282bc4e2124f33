/* A loopback TCP relay that loses answers, for tests/test_submit.sh: a
 * request that reaches the daemon whole and whose answer never comes back
 * (the case an idempotent POST exists for; a daemon cannot be made to do
 * it on cue).
 *
 * usage: flaky_proxy UPSTREAM_PORT DROP
 *
 * Listens on a free port of 127.0.0.1 and prints "port N". Connections are
 * taken one at a time and relayed to 127.0.0.1:UPSTREAM_PORT; for the
 * first DROP of them, the client's connection is closed as soon as the
 * upstream starts to answer (the request was delivered and handled), the
 * answer unsent. Runs until killed, or for an hour. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* Relays both ways until the upstream closes (or, dropping, until it
 * starts to answer). */
static void relay(int client, int upstream, int drop)
{
    static char buf[65536];
    struct pollfd p[2] = {{.fd = client, .events = POLLIN}, {.fd = upstream, .events = POLLIN}};
    for (;;) {
        int r = poll(p, 2, 3600 * 1000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        if (p[0].revents) {
            ssize_t n = recv(client, buf, sizeof(buf), 0);
            if (n <= 0) { /* the client is done sending (or gone) */
                shutdown(upstream, SHUT_WR);
                p[0].fd = -1;
            } else if (write_all(upstream, buf, (size_t)n) != 0)
                return;
        }
        if (p[1].revents) {
            ssize_t n = recv(upstream, buf, sizeof(buf), 0);
            if (n <= 0 || drop || write_all(client, buf, (size_t)n) != 0)
                return;
        }
    }
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
    alarm(3600);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 16) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0) {
        perror("flaky_proxy: listen");
        return 1;
    }
    printf("port %u\n", (unsigned)ntohs(a.sin_port));
    fflush(stdout);
    for (long served = 0;; served++) {
        int c = accept(lfd, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            perror("flaky_proxy: accept");
            return 1;
        }
        int u = connect_upstream(upstream_port);
        if (u >= 0) {
            relay(c, u, served < drop);
            close(u);
        }
        if (served < drop)
            fprintf(stderr, "flaky_proxy: dropped the answer on connection %ld\n", served + 1);
        close(c);
    }
}
