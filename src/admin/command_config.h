/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --command-config FILE: client properties as Kafka's tools take them
 * (security.protocol, ssl.truststore.*, ssl.keystore.*, ssl.key.password,
 * ssl.endpoint.identification.algorithm, ssl.enabled.protocols,
 * ssl.cipher.suites) and librdkafka's spellings (ssl.ca.location,
 * ssl.certificate.location, ssl.key.location), and SASL's: sasl.mechanism
 * with sasl.jaas.config's username and password (Kafka's) or
 * sasl.username / sasl.password (librdkafka's). Each key is handled by one
 * row of the table in command_config.c.
 */
#ifndef GR_ADMIN_COMMAND_CONFIG_H
#define GR_ADMIN_COMMAND_CONFIG_H

#include <stdbool.h>

#include "net/tls.h"

#define GR_ADMIN_CONFIG_VALUES_MAX 32

typedef struct gr_admin_command_config {
    char *security_protocol; /* PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL */
    gr_tls_config_t tls;     /* points into values */
    char *sasl_mechanism;    /* PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (GSSAPI is Kafka's default) */
    char *sasl_jaas_config;  /* its username="..." password="..." options */
    char *sasl_username;     /* librdkafka's spelling, used when the JAAS line is absent */
    char *sasl_password;
    char *values[GR_ADMIN_CONFIG_VALUES_MAX]; /* owned strings, freed by _fini */
    int value_count;
} gr_admin_command_config_t;

/*
 * Reads path (Java properties) into *out. Unknown keys are warned about on
 * stderr and ignored, as Kafka's tools do. Returns 0, or -1 with a message
 * printed (unreadable file, bad value, store type other than PEM).
 */
int gr_admin_command_config_load(const char *path, gr_admin_command_config_t *out /* out */);

/* Whether the protocol runs over TLS. */
bool gr_admin_command_config_tls(const gr_admin_command_config_t *c);

/* Whether the protocol logs in with SASL. */
bool gr_admin_command_config_sasl(const gr_admin_command_config_t *c);

/*
 * The SASL login c asks for: *mechanism (gr_sasl_mechanism_t), and the user
 * and password, copied (free them). 0, or -1 with a message printed (an
 * unsupported mechanism, no username or password).
 */
int gr_admin_command_config_login(const gr_admin_command_config_t *c, const char *path,
                                  int *mechanism, char **user, char **password);

void gr_admin_command_config_fini(gr_admin_command_config_t *c);

#endif
