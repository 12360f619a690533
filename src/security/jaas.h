/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One JAAS login-module entry, as Kafka's sasl.jaas.config values hold it:
 *
 *     org.apache.kafka.common.security.plain.PlainLoginModule required
 *         username="admin" password="admin-secret" user_alice="alice-secret";
 *
 * a module class, a control flag, then name=value options (values quoted
 * with "..." where a backslash escapes the next character, or bare words),
 * ended by ';'. Only the first entry is read (Kafka allows exactly one in a
 * sasl.jaas.config value).
 *
 * Runs on: any thread (pure parsing).
 */
#ifndef GR_SECURITY_JAAS_H
#define GR_SECURITY_JAAS_H

#include <stddef.h>

typedef struct gr_jaas_option {
    char *name;
    char *value;
} gr_jaas_option_t;

typedef struct gr_jaas {
    char *module; /* the login module's class name */
    char *flag;   /* required, requisite, sufficient or optional */
    gr_jaas_option_t *options;
    size_t count;
} gr_jaas_t;

/*
 * Parses text into *out (free with gr_jaas_fini, also after a failure).
 * Returns 0, -EINVAL with a message in err (never quoting values: they hold
 * passwords), or -ENOMEM.
 */
int gr_jaas_parse(const char *text, gr_jaas_t *out /* out */, char *err, size_t errlen);

void gr_jaas_fini(gr_jaas_t *j);

/* The value of option name, or NULL. Belongs to j. */
const char *gr_jaas_find(const gr_jaas_t *j, const char *name);

#endif
