/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listener specs ("NAME://host:port") and their security protocols, as
 * listeners, advertised.listeners and listener.security.protocol.map give
 * them (listeners.c). core/config.h includes this header: gr_config_resolve
 * fills cfg->effective.listeners with gr_config_listeners_parse.
 */
#ifndef GR_CORE_LISTENERS_H
#define GR_CORE_LISTENERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Security protocols a listener name can map to (net/ serves all four). */
typedef enum gr_security_protocol {
    GR_SECURITY_PLAINTEXT = 0,
    GR_SECURITY_SSL = 1,
    GR_SECURITY_SASL_PLAINTEXT = 2,
    GR_SECURITY_SASL_SSL = 3,
} gr_security_protocol_t;

/* "PLAINTEXT", "SSL", ... */
const char *gr_security_protocol_name(gr_security_protocol_t p);
/* Parses a protocol name of len bytes. Returns 0 and *out, or -EINVAL. */
int gr_security_protocol_parse(const char *name, size_t len, gr_security_protocol_t *out);

#define GR_LISTENER_NAME_MAX 64
#define GR_LISTENERS_MAX     8 /* listeners one broker may have */
#define GR_LISTENER_HOST_MAX 256

/* One listener, from "NAME://host:port". */
typedef struct gr_listener_spec {
    char name[GR_LISTENER_NAME_MAX]; /* upper-cased, as Kafka normalises listener names */
    char host[GR_LISTENER_HOST_MAX]; /* "" = all interfaces; IPv6 without brackets */
    uint16_t port;                   /* 0 = any free port */
    gr_security_protocol_t protocol;
} gr_listener_spec_t;

typedef struct gr_listener_list {
    gr_listener_spec_t *items;
    int count;
} gr_listener_list_t;

/* The listener named name among count specs, or NULL. */
const gr_listener_spec_t *gr_listener_spec_find(const gr_listener_spec_t *specs, int count,
                                                const char *name);

/*
 * Parses a listener list such as "PLAINTEXT://:9092,INTERNAL://[::1]:9093"
 * against a listener.security.protocol.map ("NAME:PROTOCOL,..."; NULL means
 * Kafka's default map, where each protocol name maps to itself). Names are
 * case-insensitive and must be unique; every name must map to a protocol.
 * Returns 0 and *out (free with gr_config_listeners_free()), -EINVAL with
 * err, or -ENOMEM.
 */
int gr_config_listeners_parse(const char *list, const char *protocol_map,
                              gr_listener_list_t *out /* out */, char *err, size_t errlen);

/* Frees list's specs; list is then empty. */
void gr_config_listeners_free(gr_listener_list_t *list);

/*
 * Parses gregor.http.listener's value, "http://host:port" or
 * "https://host:port" (any case; host as in listeners: empty for every
 * interface, IPv6 in brackets; port 0 for any free port) into *out, whose
 * protocol is PLAINTEXT for http and SSL for https. Returns 0, or -EINVAL
 * with err.
 */
int gr_http_listener_parse(const char *value, gr_listener_spec_t *out /* out */, char *err,
                           size_t errlen);
/* Whether value is a valid gregor.http.listener: empty (off) or as above. */
bool gr_http_listener_known(const char *value);

#endif
