/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broker/sd_notify: systemd's readiness protocol over a datagram socket.
 *
 * Lifecycle: gr_sd_notify_start (name copied, timer armed) -> the timer
 * sends READY=1 once gr_http_readiness() is NULL and stops itself ->
 * gr_sd_notify_stopping sends STOPPING=1 -> gr_sd_notify_fini. The timer is
 * unreferenced so that it never keeps the loop alive on its own.
 *
 * The poll reuses /readyz's answer rather than hooking every place that
 * changes it (start gate, ZooKeeper registration, the controller's word):
 * one definition of "ready" for systemd and for HTTP probes.
 */
#include "broker/sd_notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/logging.h"
#include "observe/http_endpoints.h"

/* How often the readiness is checked until it is reached. */
#define GR_SD_NOTIFY_POLL_SEC 0.1

int gr_sd_notify_send(const char *addr, const char *state)
{
    if (!addr || !addr[0])
        return 0;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(addr);
    if (len >= sizeof sa.sun_path || (addr[0] != '/' && addr[0] != '@'))
        return -EINVAL;
    memcpy(sa.sun_path, addr, len);
    if (addr[0] == '@')
        sa.sun_path[0] = '\0'; /* abstract namespace: the length, not a NUL, ends the name */
    socklen_t sa_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, sa_len) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

static void notify(gr_broker_t *b, const char *state)
{
    int rc = gr_sd_notify_send(b->notify_socket, state);
    if (rc)
        gr_logf(&b->log, GR_LOG_WARN, "broker", "systemd notification to %s failed: %s",
                b->notify_socket, strerror(-rc));
}

static void stop_timer(gr_broker_t *b)
{
    if (ev_is_active(&b->notify_timer)) {
        ev_ref(b->loop);
        ev_timer_stop(b->loop, &b->notify_timer);
    }
}

static void on_poll(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = t->data;
    if (gr_http_readiness(b))
        return;
    stop_timer(b);
    char state[128];
    snprintf(state, sizeof state, "READY=1\nSTATUS=accepting clients: broker %d, cluster %s",
             b->config.broker_id, b->cluster_id);
    notify(b, state);
}

int gr_sd_notify_start(gr_broker_t *b)
{
    const char *addr = getenv(GR_SD_NOTIFY_SOCKET_ENV);
    if (!addr || !addr[0])
        return 0;
    b->notify_socket = strdup(addr);
    if (!b->notify_socket)
        return -ENOMEM;
    ev_timer_init(&b->notify_timer, on_poll, 0., GR_SD_NOTIFY_POLL_SEC);
    b->notify_timer.data = b;
    ev_timer_start(b->loop, &b->notify_timer);
    ev_unref(b->loop);
    return 0;
}

void gr_sd_notify_stopping(gr_broker_t *b)
{
    if (!b->notify_socket)
        return;
    stop_timer(b);
    notify(b, "STOPPING=1\nSTATUS=shutting down");
}

void gr_sd_notify_fini(gr_broker_t *b)
{
    if (!b->notify_socket)
        return;
    stop_timer(b);
    free(b->notify_socket);
    b->notify_socket = NULL;
}
