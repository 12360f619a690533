/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback: the loopback TCP bandwidth of this machine at this moment, the
 * yardstick of the ceiling scenario. Plain sockets, no protocol: each
 * connection has a sender thread writing a buffer over and over and a
 * receiver thread reading it into a buffer, as a broker reads requests.
 *
 * Usage: bench_loopback [-c conns] [-B total_bytes] [-s chunk_bytes]
 *
 * Last stdout line: {"mode":"loopback","bytes":B,"seconds":S}
 * Exit status: 0, or 1 when a socket call fails, 2 bad usage.
 *
 * Threads: two per connection; each owns its socket end and its buffer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOOPBACK_MAX_CONNS 64

typedef struct loopback_end {
    int fd;
    long long bytes; /* to send, or received (out) */
    size_t chunk;
    int failed; /* out */
} loopback_end_t;

static double loopback_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *loopback_send(void *arg)
{
    loopback_end_t *e = arg;
    char *buf = malloc(e->chunk);
    long long left = e->bytes;

    e->failed = !buf;
    if (buf)
        memset(buf, 'x', e->chunk);
    while (buf && left > 0) {
        ssize_t w = write(e->fd, buf, left < (long long)e->chunk ? (size_t)left : e->chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e->failed = 1;
            break;
        }
        left -= w;
    }
    shutdown(e->fd, SHUT_WR);
    free(buf);
    return NULL;
}

static void *loopback_receive(void *arg)
{
    loopback_end_t *e = arg;
    char *buf = malloc(e->chunk);

    e->failed = !buf;
    e->bytes = 0;
    while (buf) {
        ssize_t r = read(e->fd, buf, e->chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            e->failed = r < 0;
            break;
        }
        e->bytes += r;
    }
    free(buf);
    return NULL;
}

/* Opens a connected pair over 127.0.0.1 through listener lfd. 0 or -1. */
static int loopback_pair(int lfd, const struct sockaddr_in *addr, int *out_send, int *out_recv)
{
    *out_send = socket(AF_INET, SOCK_STREAM, 0);
    if (*out_send < 0 || connect(*out_send, (const struct sockaddr *)addr, sizeof(*addr)) != 0)
        return -1;
    *out_recv = accept(lfd, NULL, NULL);
    return *out_recv < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    int conns = 4, opt, lfd, failed = 0;
    long long total = 4LL << 30, received = 0;
    size_t chunk = 256 << 10;
    loopback_end_t senders[LOOPBACK_MAX_CONNS], receivers[LOOPBACK_MAX_CONNS];
    pthread_t threads[2 * LOOPBACK_MAX_CONNS];
    struct sockaddr_in addr = {.sin_family = AF_INET};
    socklen_t len = sizeof(addr);
    double start, seconds;

    while ((opt = getopt(argc, argv, "c:B:s:")) != -1) {
        switch (opt) {
        case 'c':
            conns = atoi(optarg);
            break;
        case 'B':
            total = atoll(optarg);
            break;
        case 's':
            chunk = (size_t)atol(optarg);
            break;
        default:
            return 2;
        }
    }
    if (conns <= 0 || conns > LOOPBACK_MAX_CONNS || total <= 0 || chunk == 0) {
        fprintf(stderr, "usage: bench_loopback [-c conns] [-B total_bytes] [-s chunk]\n");
        return 2;
    }
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(lfd, conns) != 0 || getsockname(lfd, (struct sockaddr *)&addr, &len) != 0) {
        perror("bench_loopback: listen");
        return 1;
    }
    for (int i = 0; i < conns; i++) {
        senders[i] = (loopback_end_t){-1, total / conns, chunk, 0};
        receivers[i] = (loopback_end_t){-1, 0, chunk, 0};
        if (loopback_pair(lfd, &addr, &senders[i].fd, &receivers[i].fd) != 0) {
            perror("bench_loopback: connect");
            return 1;
        }
    }
    start = loopback_now();
    for (int i = 0; i < conns; i++) {
        pthread_create(&threads[2 * i], NULL, loopback_receive, &receivers[i]);
        pthread_create(&threads[2 * i + 1], NULL, loopback_send, &senders[i]);
    }
    for (int i = 0; i < 2 * conns; i++)
        pthread_join(threads[i], NULL);
    seconds = loopback_now() - start;
    for (int i = 0; i < conns; i++) {
        failed |= senders[i].failed | receivers[i].failed;
        received += receivers[i].bytes;
        close(senders[i].fd);
        close(receivers[i].fd);
    }
    close(lfd);
    if (failed)
        return 1;
    printf("{\"mode\":\"loopback\",\"bytes\":%lld,\"seconds\":%.6f}\n", received, seconds);
    return 0;
}
