/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SASL mechanisms Gregor knows, and the broker's SASL settings read from its
 * configuration at start-up (sasl_config.c):
 *
 *   - per SASL_* listener, the enabled mechanisms
 *     (listener.name.<l>.sasl.enabled.mechanisms, else
 *     sasl.enabled.mechanisms) and PLAIN's users: the user_<name>="password"
 *     options of the JAAS entry listener.name.<l>.plain.sasl.jaas.config,
 *     else listener.name.<l>.sasl.jaas.config, else sasl.jaas.config;
 *   - connections.max.reauth.ms (KIP-368);
 *   - the credentials of this broker's own connections when the inter-broker
 *     listener is SASL_*: sasl.mechanism.inter.broker.protocol with the
 *     username / password options of that listener's JAAS entry.
 *
 * GSSAPI and OAUTHBEARER are Kafka mechanisms Gregor does not serve: naming
 * one for a SASL listener fails start-up with a message saying so.
 *
 * Immutable after gr_sasl_new. Runs on: loop thread.
 */
#ifndef GR_SECURITY_SASL_CONFIG_H
#define GR_SECURITY_SASL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "security/jaas.h"

/* Numbered as Kafka's ScramMechanism (AlterUserScramCredentials) for the SCRAM ones. */
typedef enum gr_sasl_mechanism {
    GR_SASL_PLAIN = 0,
    GR_SASL_SCRAM_SHA_256 = 1,
    GR_SASL_SCRAM_SHA_512 = 2,
    GR_SASL_MECHANISM_COUNT
} gr_sasl_mechanism_t;

#define GR_SASL_USER_MAX 256
#define GR_SASL_NAME_MAX 32 /* the longest mechanism name, with room */

typedef struct gr_sasl_listener {
    char name[GR_LISTENER_NAME_MAX];
    bool enabled[GR_SASL_MECHANISM_COUNT];
    gr_jaas_t plain_jaas; /* PLAIN's entry; module NULL when none is configured */
    /* connections.max.reauth.ms for each mechanism (KIP-368), 0: sessions never expire */
    int64_t reauth_ms[GR_SASL_MECHANISM_COUNT];
} gr_sasl_listener_t;

typedef struct gr_sasl {
    gr_sasl_listener_t *listeners; /* the SASL_* ones */
    int count;
    /* This broker's own connections to the inter-broker listener. */
    bool inter_broker; /* that listener is SASL_* */
    gr_sasl_mechanism_t inter_mechanism;
    char *inter_username;
    char *inter_password;
} gr_sasl_t;

/* Kafka's name of m ("PLAIN", "SCRAM-SHA-256", ...). */
const char *gr_sasl_mechanism_name(gr_sasl_mechanism_t m);

/* The mechanism called name (exact, as Kafka matches it), or -1. */
int gr_sasl_mechanism_find(const char *name);

/* Whether m is a SCRAM mechanism. */
bool gr_sasl_mechanism_is_scram(gr_sasl_mechanism_t m);

/*
 * Reads cfg's SASL settings (cfg resolved). Returns 0 and *out (gr_sasl_free),
 * -EINVAL with err (an unsupported or unknown mechanism, a malformed JAAS
 * entry, missing inter-broker credentials), or -ENOMEM.
 */
int gr_sasl_new(const gr_config_t *cfg, gr_sasl_t **out /* out */, char *err, size_t errlen);

void gr_sasl_free(gr_sasl_t *s);

/* The settings of SASL listener name, or NULL. */
const gr_sasl_listener_t *gr_sasl_listener_find(const gr_sasl_t *s, const char *name);

#endif
