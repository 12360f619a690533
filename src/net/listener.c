/* SPDX-License-Identifier: Apache-2.0 */
/* Listening sockets: see listener.h. Runs on: loop thread. */
#include "net/listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int open_spare(void)
{
    return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void format_addr(const struct sockaddr *sa, char *out, size_t size)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        snprintf(out, size, "[%s]:%u", host, ntohs(in6->sin6_port));
    } else {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        snprintf(out, size, "%s:%u", host, ntohs(in->sin_port));
    }
}

/* Creates, binds and listens one socket for ai. Returns the fd or -errno. */
static int bind_one(const struct addrinfo *ai, bool dual_stack, int backlog)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -errno;
    int one = 1, zero = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
        goto fail;
    if (ai->ai_family == AF_INET6 && dual_stack &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0)
        goto fail;
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, backlog) < 0)
        goto fail;
    return fd;
fail:;
    int err = -errno;
    close(fd);
    return err;
}

/* Binds the first address of host:port that works. Returns the fd or -errno. */
static int bind_host(const char *host, uint16_t port, int backlog)
{
    char name[INET6_ADDRSTRLEN + 2];
    bool any = !host || !*host;
    if (!any) {
        size_t len = strlen(host);
        if (host[0] == '[' && len > 2 && host[len - 1] == ']') {
            if (len - 2 >= sizeof name)
                return -EINVAL;
            memcpy(name, host + 1, len - 2);
            name[len - 2] = '\0';
            host = name;
        }
    }
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    hints.ai_family = any ? AF_INET6 : AF_UNSPEC;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(any ? NULL : host, service, &hints, &res);
    if (rc != 0 && any) {
        /* No IPv6 on this host: every IPv4 interface. */
        hints.ai_family = AF_INET;
        rc = getaddrinfo(NULL, service, &hints, &res);
    }
    if (rc != 0)
        return rc == EAI_SYSTEM ? -errno : -EINVAL;
    int fd = -EADDRNOTAVAIL;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = bind_one(ai, any, backlog);
        if (fd >= 0)
            break;
    }
    freeaddrinfo(res);
    if (any && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)) {
        /* IPv6 resolved but the kernel has it disabled. */
        struct addrinfo v4 = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
        sin.sin_addr.s_addr = htonl(INADDR_ANY);
        v4.ai_addr = (struct sockaddr *)&sin;
        v4.ai_addrlen = sizeof sin;
        fd = bind_one(&v4, false, backlog);
    }
    return fd;
}

static void pause_for_retry(gr_listener_t *l)
{
    ev_io_stop(l->loop, &l->watcher);
    ev_timer_set(&l->retry, GR_LISTENER_RETRY_SEC, 0.);
    ev_timer_start(l->loop, &l->retry);
}

/* Out of descriptors: refuse the pending connection rather than leave it spinning. */
static void refuse_one(gr_listener_t *l)
{
    if (l->spare_fd < 0) {
        pause_for_retry(l);
        return;
    }
    close(l->spare_fd);
    int fd = accept(l->fd, NULL, NULL);
    if (fd >= 0)
        close(fd);
    l->spare_fd = open_spare();
    gr_logf(l->log, GR_LOG_WARN, "net",
            "listener %s: out of file descriptors, refused a connection", l->addr);
}

static void accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_listener_t *l = w->data;
    for (int i = 0; i < GR_LISTENER_ACCEPT_BATCH && l->fd >= 0; i++) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            l->on_accept(l, fd, l->opaque);
            /* on_accept may have paused or closed us. */
            if (l->paused || !ev_is_active(&l->watcher))
                return;
            continue;
        }
        switch (errno) {
        case EAGAIN:
#if EAGAIN != EWOULDBLOCK
        case EWOULDBLOCK:
#endif
            return;
        case EINTR:
        case ECONNABORTED:
        case EPROTO:
            continue;
        case EMFILE:
            refuse_one(l);
            return;
        default:
            /* ENFILE, ENOBUFS, ENOMEM and the unexpected: back off, try later. */
            gr_logf(l->log, GR_LOG_WARN, "net", "listener %s: accept failed: %s", l->addr,
                    strerror(errno));
            pause_for_retry(l);
            return;
        }
    }
}

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_listener_t *l = w->data;
    if (l->spare_fd < 0)
        l->spare_fd = open_spare();
    if (l->fd >= 0 && !l->paused)
        ev_io_start(l->loop, &l->watcher);
}

int gr_listener_bind(const char *host, uint16_t port, int backlog, uint16_t *bound_port, char *addr,
                     size_t addr_size)
{
    int fd = bind_host(host, port, backlog > 0 ? backlog : GR_LISTENER_BACKLOG);
    if (fd < 0)
        return fd;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    format_addr((struct sockaddr *)&ss, addr, addr_size);
    *bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

int gr_listener_open(gr_listener_t *l, struct ev_loop *loop, const char *host, uint16_t port,
                     int backlog, gr_listener_accept_fn on_accept, void *opaque,
                     const gr_logger_t *log)
{
    memset(l, 0, sizeof(*l));
    l->fd = -1;
    l->spare_fd = -1;
    int fd = gr_listener_bind(host, port, backlog, &l->port, l->addr, sizeof l->addr);
    if (fd < 0)
        return fd;
    l->loop = loop;
    l->fd = fd;
    l->spare_fd = open_spare();
    l->on_accept = on_accept;
    l->opaque = opaque;
    l->log = log;
    ev_io_init(&l->watcher, accept_cb, fd, EV_READ);
    l->watcher.data = l;
    ev_timer_init(&l->retry, retry_cb, GR_LISTENER_RETRY_SEC, 0.);
    l->retry.data = l;
    ev_io_start(loop, &l->watcher);
    gr_logf(log, GR_LOG_DEBUG, "net", "listener bound to %s", l->addr);
    return 0;
}

uint16_t gr_listener_port(const gr_listener_t *l)
{
    return l->port;
}

void gr_listener_pause(gr_listener_t *l)
{
    l->paused = true;
    if (l->fd >= 0)
        ev_io_stop(l->loop, &l->watcher);
}

void gr_listener_resume(gr_listener_t *l)
{
    l->paused = false;
    if (l->fd >= 0 && !ev_is_active(&l->retry))
        ev_io_start(l->loop, &l->watcher);
}

void gr_listener_close(gr_listener_t *l)
{
    if (l->fd < 0)
        return;
    ev_io_stop(l->loop, &l->watcher);
    ev_timer_stop(l->loop, &l->retry);
    close(l->fd);
    l->fd = -1;
    if (l->spare_fd >= 0)
        close(l->spare_fd);
    l->spare_fd = -1;
}
