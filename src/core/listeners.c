/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listener specs: "NAME://host:port" lists (listeners, advertised.listeners)
 * and the security protocol each name maps to through
 * listener.security.protocol.map. Names are upper-cased, as Kafka normalises
 * them; a name missing from the map is an error naming the entry to add.
 * Pure functions over text; the results belong to the caller. Runs on: the
 * main thread at start-up (gr_config_resolve), and wherever a spec is looked
 * up.
 */
#include "core/listeners.h"
#include "core/config_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by gr_security_protocol_t; NULL-terminated for the key table's value set. */
const char *const gr_security_protocol_names[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL",
                                                  NULL};

const char *gr_security_protocol_name(gr_security_protocol_t p)
{
    return (size_t)p < sizeof gr_security_protocol_names / sizeof *gr_security_protocol_names - 1
               ? gr_security_protocol_names[p]
               : "UNKNOWN";
}

int gr_security_protocol_parse(const char *name, size_t len, gr_security_protocol_t *out)
{
    for (int k = 0; gr_security_protocol_names[k] != NULL; k++) {
        if (strlen(gr_security_protocol_names[k]) == len &&
            memcmp(gr_security_protocol_names[k], name, len) == 0) {
            *out = (gr_security_protocol_t)k;
            return 0;
        }
    }
    return -EINVAL;
}

const gr_listener_spec_t *gr_listener_spec_find(const gr_listener_spec_t *specs, int count,
                                                const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    return NULL;
}

void gr_config_listeners_free(gr_listener_list_t *list)
{
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/*
 * Finds name's protocol in a "NAME:PROTOCOL,..." map. Returns 0 and *out,
 * 1 when the name is not in the map, -EINVAL with err for a malformed map.
 */
static int protocol_lookup(const char *map, const char *name, gr_security_protocol_t *out,
                           char *err, size_t errlen)
{
    gr_config_list_t entries;
    int rc = 1;

    if (gr_config_list_split(map, &entries) < 0)
        return -ENOMEM;
    for (int i = 0; i < entries.count; i++) {
        char *e = entries.items[i], *colon = strchr(e, ':');
        if (colon == NULL || colon == e || colon[1] == '\0') {
            gr_config_seterr(
                err, errlen,
                "invalid listener.security.protocol.map entry '%s': expected NAME:PROTOCOL", e);
            rc = -EINVAL;
            break;
        }
        *colon = '\0';
        char *proto = colon + 1;
        gr_config_upper(e);
        gr_config_upper(proto);
        int p = -1;
        for (int k = 0; gr_security_protocol_names[k] != NULL; k++)
            if (strcmp(gr_security_protocol_names[k], proto) == 0)
                p = k;
        if (p < 0) {
            gr_config_seterr(
                err, errlen,
                "invalid listener.security.protocol.map entry '%s:%s': unknown security "
                "protocol %s",
                e, proto, proto);
            rc = -EINVAL;
            break;
        }
        if (rc == 1 && strcmp(e, name) == 0) {
            *out = (gr_security_protocol_t)p;
            rc = 0;
        }
    }
    gr_config_list_free(&entries);
    return rc;
}

int gr_config_listeners_parse(const char *list, const char *protocol_map, gr_listener_list_t *out,
                              char *err, size_t errlen)
{
    gr_listener_list_t res = {NULL, 0};
    gr_config_list_t items;
    int rc;

    out->items = NULL;
    out->count = 0;
    if (protocol_map == NULL)
        protocol_map = GR_DEFAULT_PROTOCOL_MAP;
    if (gr_config_list_split(list, &items) < 0)
        return -ENOMEM;
    if (items.count > GR_LISTENERS_MAX) {
        gr_config_seterr(err, errlen, "%d listeners: at most %d are supported", items.count,
                         GR_LISTENERS_MAX);
        rc = -EINVAL;
        goto fail;
    }
    res.items = calloc((size_t)(items.count ? items.count : 1), sizeof(gr_listener_spec_t));
    if (res.items == NULL) {
        rc = -ENOMEM;
        goto fail;
    }
    for (int i = 0; i < items.count; i++) {
        const char *item = items.items[i];
        const char *sep = strstr(item, "://");
        gr_listener_spec_t *l = &res.items[res.count];
        const char *hp, *host, *port;
        size_t host_len;

        if (sep == NULL || sep == item || (size_t)(sep - item) >= sizeof(l->name)) {
            gr_config_seterr(err, errlen, "invalid listener '%s': expected NAME://host:port", item);
            rc = -EINVAL;
            goto fail;
        }
        memcpy(l->name, item, (size_t)(sep - item));
        gr_config_upper(l->name);
        hp = sep + 3;
        if (hp[0] == '[') {
            const char *close = strchr(hp, ']');
            if (close == NULL || close[1] != ':') {
                gr_config_seterr(err, errlen, "invalid listener '%s': expected [ipv6-address]:port",
                                 item);
                rc = -EINVAL;
                goto fail;
            }
            host = hp + 1;
            host_len = (size_t)(close - host);
            port = close + 2;
        } else {
            const char *colon = strrchr(hp, ':');
            if (colon == NULL) {
                gr_config_seterr(err, errlen, "invalid listener '%s': no port", item);
                rc = -EINVAL;
                goto fail;
            }
            host = hp;
            host_len = (size_t)(colon - hp);
            port = colon + 1;
        }
        int64_t portnum;
        if (!gr_config_parse_int64(port, &portnum) || portnum < 0 || portnum > 65535 ||
            port[0] == '+' || port[0] == '-') {
            gr_config_seterr(err, errlen,
                             "invalid listener '%s': port must be a number from 0 to 65535", item);
            rc = -EINVAL;
            goto fail;
        }
        if (host_len >= sizeof(l->host)) {
            gr_config_seterr(err, errlen, "invalid listener '%s': host name too long", item);
            rc = -EINVAL;
            goto fail;
        }
        memcpy(l->host, host, host_len);
        l->port = (uint16_t)portnum;
        if (gr_listener_spec_find(res.items, res.count, l->name)) {
            gr_config_seterr(err, errlen, "listener name %s appears more than once", l->name);
            rc = -EINVAL;
            goto fail;
        }
        rc = protocol_lookup(protocol_map, l->name, &l->protocol, err, errlen);
        if (rc == 1) {
            gr_config_seterr(err, errlen,
                             "listener %s has no security protocol: add %s:PLAINTEXT to "
                             "listener.security.protocol.map",
                             l->name, l->name);
            rc = -EINVAL;
        }
        if (rc < 0)
            goto fail;
        res.count++;
    }
    gr_config_list_free(&items);
    *out = res;
    return 0;
fail:
    gr_config_list_free(&items);
    gr_config_listeners_free(&res);
    return rc;
}

/* The HTTP listener is one listener spec whose "names" are the schemes. */
#define HTTP_SCHEME_MAP "HTTP:PLAINTEXT,HTTPS:SSL"

int gr_http_listener_parse(const char *value, gr_listener_spec_t *out, char *err, size_t errlen)
{
    gr_listener_list_t list;
    int rc = gr_config_listeners_parse(value, HTTP_SCHEME_MAP, &list, err, errlen);
    if (rc == 0 && list.count != 1) {
        gr_config_seterr(err, errlen, "gregor.http.listener: one http:// or https:// address");
        rc = -EINVAL;
    }
    if (rc == 0)
        *out = list.items[0];
    gr_config_listeners_free(&list); /* empty after a failed parse */
    return rc;
}

bool gr_http_listener_known(const char *value)
{
    char err[128];
    gr_listener_spec_t spec;
    return !value[0] || gr_http_listener_parse(value, &spec, err, sizeof err) == 0;
}
