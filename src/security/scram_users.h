/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SCRAM credentials this broker knows: a cache of the /config/users/<name>
 * znodes, Kafka's ZooKeeper-mode format,
 *
 *   {"version":1,"config":{"SCRAM-SHA-256":"salt=<b64>,stored_key=<b64>,
 *                           server_key=<b64>,iterations=4096", ...}}
 *
 * (the same znode may hold a user's quota keys, which are kept as they are
 * when credentials change). Filled at start-up and refreshed on every
 * /config/changes notification for users/<name> (scram_store.c). The
 * password itself is never stored: only the salt and the two keys the
 * server side of RFC 5802 needs.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_SCRAM_USERS_H
#define GR_SECURITY_SCRAM_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "security/sasl_config.h"
#include "security/scram_crypto.h"

#define GR_SCRAM_SALT_MAX       128
#define GR_SCRAM_CREDENTIAL_MAX 512 /* the longest credential string */

typedef struct gr_scram_credential {
    uint8_t salt[GR_SCRAM_SALT_MAX];
    size_t salt_len;
    uint8_t stored_key[GR_SCRAM_HASH_MAX];
    uint8_t server_key[GR_SCRAM_HASH_MAX];
    int32_t iterations;
} gr_scram_credential_t;

typedef struct gr_scram_users gr_scram_users_t;

/* Number of SCRAM mechanisms, indexed by mechanism - GR_SASL_SCRAM_SHA_256. */
#define GR_SCRAM_MECHANISMS 2

gr_scram_users_t *gr_scram_users_new(void);
void gr_scram_users_free(gr_scram_users_t *u);

/* user's credential for mechanism m, or NULL. Valid until the next change of u. */
const gr_scram_credential_t *gr_scram_users_find(const gr_scram_users_t *u, const char *user,
                                                 gr_sasl_mechanism_t m);

/*
 * Replaces what u knows of user with the znode text (len bytes; NULL or
 * len 0: the znode is gone). Keys other than the SCRAM mechanisms are
 * ignored. Returns 0, -EINVAL (malformed JSON or credential: the user then
 * has no credentials) or -ENOMEM.
 */
int gr_scram_users_apply(gr_scram_users_t *u, const char *user, const char *text, size_t len);

/* Users with at least one credential, in insertion order; i < count. */
size_t gr_scram_users_count(const gr_scram_users_t *u);
const char *gr_scram_users_name(const gr_scram_users_t *u, size_t i);

/* Parses "salt=..,stored_key=..,server_key=..,iterations=N" for m. 0 or -EINVAL. */
int gr_scram_credential_parse(const char *text, gr_sasl_mechanism_t m,
                              gr_scram_credential_t *out /* out */);
/* Writes that text into out (GR_SCRAM_CREDENTIAL_MAX bytes). 0 or -ENOSPC. */
int gr_scram_credential_format(const gr_scram_credential_t *c, gr_sasl_mechanism_t m, char *out,
                               size_t size);

#endif
