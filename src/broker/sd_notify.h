/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broker/sd_notify: systemd's readiness protocol (sd_notify(3)) without
 * libsystemd. A unit with Type=notify starts the broker with NOTIFY_SOCKET
 * naming an AF_UNIX datagram socket ("@name" for the abstract namespace);
 * the broker sends "READY=1" once it accepts clients (the state /readyz
 * reports, observe/http_endpoints.c) and "STOPPING=1" when its shutdown
 * starts. Without NOTIFY_SOCKET nothing is sent and nothing is started.
 *
 * State: b->notify_socket (copied from the environment at start) and
 * b->notify_timer, which polls the readiness until it is reached, then stops.
 * Thread: the loop thread.
 */
#ifndef GR_BROKER_SD_NOTIFY_H
#define GR_BROKER_SD_NOTIFY_H

#include "core/context.h"

/* The environment variable systemd sets for Type=notify services. */
#define GR_SD_NOTIFY_SOCKET_ENV "NOTIFY_SOCKET"

/*
 * Sends one notification datagram, e.g. "READY=1\nSTATUS=accepting clients",
 * to the socket named by addr: a path, or "@name" for the abstract namespace.
 * Returns 0 when sent or when addr is NULL or empty (not run by systemd),
 * -EINVAL for a name too long or not absolute, or -errno of socket/sendto.
 */
int gr_sd_notify_send(const char *addr, const char *state);

/*
 * Reads NOTIFY_SOCKET and, when set, starts polling the readiness: READY=1
 * is sent once, the first time /readyz would answer "ready".
 * Returns 0, or -ENOMEM when the name cannot be copied.
 */
int gr_sd_notify_start(gr_broker_t *b);

/* Sends STOPPING=1 and stops the poll (a repeat is harmless). Safe without a start. */
void gr_sd_notify_stopping(gr_broker_t *b);

/* Stops the poll and frees the name; safe to call twice or without a start. */
void gr_sd_notify_fini(gr_broker_t *b);

#endif
