/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the configuration files of src/core/ (config.c,
 * config_keys.c, listeners.c); not for other folders. The text helpers are
 * defined in config.c, the protocol names in listeners.c.
 */
#ifndef GR_CORE_CONFIG_INT_H
#define GR_CORE_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

/* Kafka's default listener.security.protocol.map: each protocol names itself. */
#define GR_DEFAULT_PROTOCOL_MAP                                                                    \
    "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"

/* The protocol names, indexed by gr_security_protocol_t, NULL-terminated. */
extern const char *const gr_security_protocol_names[];

/* snprintf into err, unless err is NULL or errlen 0. */
void gr_config_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Java's String.trim: drops characters <= ' ' at both ends of s[0..*len). */
void gr_config_trim(const char **s, size_t *len);

/*
 * Splits text on commas, trimming items and dropping empty ones. Returns 0
 * and *out (free with gr_config_list_free), or -ENOMEM.
 */
int gr_config_list_split(const char *text, gr_config_list_t *out /* out */);

/* Frees l's items; l is then empty. */
void gr_config_list_free(gr_config_list_t *l);

/* Java's Long.parseLong: optional sign, decimal digits, nothing else. False if not. */
bool gr_config_parse_int64(const char *s, int64_t *out /* out */);

/* Upper-cases s in place (ASCII). */
void gr_config_upper(char *s);

#endif
