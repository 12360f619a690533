/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The server side of one SASL exchange on one connection, whatever the
 * mechanism: tokens in, tokens out, until the client is authenticated or
 * refused. sasl_plain.c and sasl_scram.c do the mechanisms' work.
 *
 * A step that fails answers GR_KERR_SASL_AUTHENTICATION_FAILED and the
 * exchange is over (the caller frees it); the message to send is
 * gr_sasl_server_failure(), the same whatever was wrong, so a client learns
 * nothing about which part of its credentials was bad.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_SASL_SERVER_H
#define GR_SECURITY_SASL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/kerr.h"
#include "security/sasl_config.h"
#include "security/scram_users.h"

typedef struct gr_sasl_server gr_sasl_server_t;

typedef struct gr_sasl_reply {
    uint8_t *token; /* malloc'ed (free()), NULL for an empty token */
    size_t len;
    bool done; /* the client is authenticated as gr_sasl_server_user() */
} gr_sasl_reply_t;

/*
 * A new exchange of mechanism m for listener l (PLAIN's users) and users
 * (SCRAM's credentials, looked up when the client names itself; may be
 * NULL). Returns NULL when out of memory.
 */
gr_sasl_server_t *gr_sasl_server_new(gr_sasl_mechanism_t m, const gr_sasl_listener_t *l,
                                     const gr_scram_users_t *users);

/*
 * Feeds one client token (len bytes of in). Returns GR_KERR_NONE with
 * *reply filled (a token to send, possibly empty, and whether it is done),
 * or GR_KERR_SASL_AUTHENTICATION_FAILED (nothing in *reply; the exchange is
 * over), or GR_KERR_ILLEGAL_SASL_STATE after the exchange ended.
 */
gr_kerr_t gr_sasl_server_step(gr_sasl_server_t *s, const uint8_t *in, size_t len,
                              gr_sasl_reply_t *reply /* out */);

/* The user the client claims (once it said so), else "". For log lines. */
const char *gr_sasl_server_user(const gr_sasl_server_t *s);

/* Kafka's message for a failed login with s's mechanism. */
const char *gr_sasl_server_failure(const gr_sasl_server_t *s);

/* Frees s (void * so a session can hold it); NULL is fine. */
void gr_sasl_server_free(void *s);

/* ---- the mechanisms (sasl_plain.c, sasl_scram.c) -------------------------------------- */

/*
 * PLAIN (RFC 4616): "[authzid] NUL authcid NUL password", checked against
 * jaas's user_<authcid> option (constant time over the password). Copies
 * the user (authcid) into user. GR_KERR_NONE or SASL_AUTHENTICATION_FAILED.
 */
gr_kerr_t gr_sasl_plain_check(const gr_jaas_t *jaas, const uint8_t *in, size_t len, char *user,
                              size_t user_size);

typedef struct gr_scram_server gr_scram_server_t;

/*
 * A SCRAM server exchange of mechanism m. nonce is the server's part of the
 * nonce (printable, no ','), or NULL for a random one (tests pass RFC
 * 7677's). NULL when out of memory.
 */
gr_scram_server_t *gr_scram_server_new(gr_sasl_mechanism_t m, const gr_scram_users_t *users,
                                       const char *nonce);
/* As gr_sasl_server_step (without done's user: see gr_scram_server_user). */
gr_kerr_t gr_scram_server_step(gr_scram_server_t *s, const uint8_t *in, size_t len,
                               gr_sasl_reply_t *reply /* out */);
const char *gr_scram_server_user(const gr_scram_server_t *s);
void gr_scram_server_free(gr_scram_server_t *s);

#endif
