/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's SASL settings from its configuration: see sasl_config.h. Runs on: main thread. */
#include "security/sasl_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/session.h"

#define JAAS_KEY   "sasl.jaas.config"
#define REAUTH_KEY "connections.max.reauth.ms"

static const char *const mechanism_names[GR_SASL_MECHANISM_COUNT] = {
    [GR_SASL_PLAIN] = "PLAIN",
    [GR_SASL_SCRAM_SHA_256] = "SCRAM-SHA-256",
    [GR_SASL_SCRAM_SHA_512] = "SCRAM-SHA-512",
};

/* Kafka mechanisms Gregor does not serve, refused with a clear message. */
static const char *const unsupported_names[] = {"GSSAPI", "OAUTHBEARER", NULL};

const char *gr_sasl_mechanism_name(gr_sasl_mechanism_t m)
{
    return m < GR_SASL_MECHANISM_COUNT ? mechanism_names[m] : "?";
}

int gr_sasl_mechanism_find(const char *name)
{
    for (int m = 0; m < GR_SASL_MECHANISM_COUNT; m++)
        if (strcmp(mechanism_names[m], name) == 0)
            return m;
    return -1;
}

bool gr_sasl_mechanism_is_scram(gr_sasl_mechanism_t m)
{
    return m == GR_SASL_SCRAM_SHA_256 || m == GR_SASL_SCRAM_SHA_512;
}

/* Mechanism name (trimmed span) to its number, or -EINVAL with err. */
static int mechanism_check(const char *name, const char *key, char *err, size_t errlen)
{
    int m = gr_sasl_mechanism_find(name);
    if (m >= 0)
        return m;
    for (int i = 0; unsupported_names[i]; i++) {
        if (strcmp(unsupported_names[i], name) == 0) {
            snprintf(err, errlen,
                     "%s: SASL mechanism %s is not supported by Gregor (supported: PLAIN, "
                     "SCRAM-SHA-256, SCRAM-SHA-512)",
                     key, name);
            return -EINVAL;
        }
    }
    snprintf(err, errlen, "%s: unknown SASL mechanism %s", key, name);
    return -EINVAL;
}

/* Parses a comma-separated mechanism list into enabled[]. */
static int parse_mechanisms(const char *list, const char *key, bool *enabled, char *err,
                            size_t errlen)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -ENOMEM;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*t))
            t++;
        for (char *e = t + strlen(t); e > t && isspace((unsigned char)e[-1]); e--)
            e[-1] = '\0';
        if (*t == '\0')
            continue;
        int m = mechanism_check(t, key, err, errlen);
        if (m < 0)
            rc = m;
        else
            enabled[m] = true;
    }
    free(copy);
    return rc;
}

/* The enabled mechanisms of listener l. */
static int listener_mechanisms(const gr_config_t *cfg, gr_sasl_listener_t *l, char *err,
                               size_t errlen)
{
    const char *v = gr_config_listener_value(cfg, l->name, "sasl.enabled.mechanisms");
    if (v)
        return parse_mechanisms(v, "listener.name.*.sasl.enabled.mechanisms", l->enabled, err,
                                errlen);
    int rc = 0;
    for (int i = 0; i < cfg->sasl_enabled_mechanisms.count && rc == 0; i++)
        rc = parse_mechanisms(cfg->sasl_enabled_mechanisms.items[i], "sasl.enabled.mechanisms",
                              l->enabled, err, errlen);
    return rc;
}

/*
 * The value of key for mechanism m on listener, most specific first:
 * listener.name.<l>.<mechanism>.<key>, then listener.name.<l>.<key>; NULL
 * when neither is set (the caller falls back to the plain key).
 */
static const char *mechanism_value(const gr_config_t *cfg, const char *listener,
                                   gr_sasl_mechanism_t m, const char *key)
{
    char full[GR_SASL_MECHANISM_MAX + 64];
    snprintf(full, sizeof full, "%s.%s", gr_sasl_mechanism_name(m), key);
    for (char *p = full; *p != '.'; p++)
        *p = (char)tolower((unsigned char)*p);
    const char *v = gr_config_listener_value(cfg, listener, full);
    return v ? v : gr_config_listener_value(cfg, listener, key);
}

/* The JAAS text for mechanism m on listener: most specific key first. */
static const char *jaas_text(const gr_config_t *cfg, const char *listener, gr_sasl_mechanism_t m)
{
    const char *v = mechanism_value(cfg, listener, m, JAAS_KEY);
    return v ? v : cfg->sasl_jaas_config;
}

/* connections.max.reauth.ms of each mechanism on l (KIP-368's prefixed keys win). */
static int listener_reauth(const gr_config_t *cfg, gr_sasl_listener_t *l, char *err, size_t errlen)
{
    for (int m = 0; m < GR_SASL_MECHANISM_COUNT; m++) {
        const char *v = mechanism_value(cfg, l->name, m, REAUTH_KEY);
        l->reauth_ms[m] = cfg->connections_max_reauth_ms;
        if (!v)
            continue;
        char *end;
        errno = 0;
        long long ms = strtoll(v, &end, 10);
        if (errno || end == v || *end || ms < 0) {
            snprintf(err, errlen, "listener %s: %s=%s is not a number of milliseconds", l->name,
                     REAUTH_KEY, v);
            return -EINVAL;
        }
        l->reauth_ms[m] = ms;
    }
    return 0;
}

static int listener_init(const gr_config_t *cfg, const gr_listener_spec_t *spec,
                         gr_sasl_listener_t *l, char *err, size_t errlen)
{
    snprintf(l->name, sizeof l->name, "%s", spec->name);
    int rc = listener_mechanisms(cfg, l, err, errlen);
    if (rc == 0)
        rc = listener_reauth(cfg, l, err, errlen);
    if (rc)
        return rc;
    const char *text = jaas_text(cfg, l->name, GR_SASL_PLAIN);
    if (!l->enabled[GR_SASL_PLAIN] || !text)
        return 0;
    rc = gr_jaas_parse(text, &l->plain_jaas, err, errlen);
    if (rc == -EINVAL) {
        char why[256];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "listener %s, PLAIN: %s", l->name, why);
    }
    return rc;
}

/* Credentials of this broker's own connections on the inter-broker listener. */
static int inter_broker_init(const gr_config_t *cfg, gr_sasl_t *s, char *err, size_t errlen)
{
    const char *name = cfg->effective.inter_broker_listener;
    const gr_listener_spec_t *spec = NULL;
    for (int i = 0; i < cfg->effective.listeners.count && !spec; i++)
        if (strcmp(cfg->effective.listeners.items[i].name, name) == 0)
            spec = &cfg->effective.listeners.items[i];
    if (!spec || !gr_security_protocol_is_sasl(spec->protocol))
        return 0;
    int m = mechanism_check(cfg->sasl_mechanism_inter_broker_protocol,
                            "sasl.mechanism.inter.broker.protocol", err, errlen);
    if (m < 0)
        return m;
    gr_jaas_t jaas;
    int rc = gr_jaas_parse(jaas_text(cfg, name, m), &jaas, err, errlen);
    const char *user = rc ? NULL : gr_jaas_find(&jaas, "username");
    const char *password = rc ? NULL : gr_jaas_find(&jaas, "password");
    if (rc == 0 && (!user || !password)) {
        snprintf(err, errlen,
                 "inter-broker listener %s: the %s JAAS entry needs username and password", name,
                 gr_sasl_mechanism_name(m));
        rc = -EINVAL;
    }
    if (rc == 0) {
        s->inter_broker = true;
        s->inter_mechanism = m;
        s->inter_username = strdup(user);
        s->inter_password = strdup(password);
        if (!s->inter_username || !s->inter_password)
            rc = -ENOMEM;
    }
    gr_jaas_fini(&jaas);
    return rc;
}

int gr_sasl_new(const gr_config_t *cfg, gr_sasl_t **out, char *err, size_t errlen)
{
    gr_sasl_t *s = calloc(1, sizeof *s);
    int n = cfg->effective.listeners.count;
    if (!s || !(s->listeners = calloc((size_t)(n ? n : 1), sizeof *s->listeners))) {
        free(s);
        return -ENOMEM;
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const gr_listener_spec_t *spec = &cfg->effective.listeners.items[i];
        if (gr_security_protocol_is_sasl(spec->protocol))
            rc = listener_init(cfg, spec, &s->listeners[s->count++], err, errlen);
    }
    if (rc == 0)
        rc = inter_broker_init(cfg, s, err, errlen);
    if (rc) {
        gr_sasl_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void gr_sasl_free(gr_sasl_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->count; i++)
        gr_jaas_fini(&s->listeners[i].plain_jaas);
    free(s->listeners);
    free(s->inter_username);
    free(s->inter_password);
    free(s);
}

const gr_sasl_listener_t *gr_sasl_listener_find(const gr_sasl_t *s, const char *name)
{
    for (int i = 0; s && i < s->count; i++)
        if (strcmp(s->listeners[i].name, name) == 0)
            return &s->listeners[i];
    return NULL;
}
