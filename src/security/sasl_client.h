/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client side of SASL PLAIN and SCRAM-SHA-256/512 (RFC 4616, RFC 5802
 * without channel binding), as a token state machine with no I/O: the
 * broker's own connections to other brokers (net/peer.h's gr_peer_sasl_t)
 * and gregor-admin drive it with SaslAuthenticate round trips.
 *
 *   PLAIN: step(NULL) -> "\0user\0password"; step(server's answer) -> done.
 *   SCRAM: step(NULL) -> client-first "n,,n=<user>,r=<nonce>";
 *          step(server-first) -> client-final "c=biws,r=<nonce>,p=<proof>";
 *          step(server-final "v=<signature>") -> done once the server's
 *          signature proves it knows the credential.
 *
 * Runs on: any thread (one exchange per thread at a time).
 */
#ifndef GR_SECURITY_SASL_CLIENT_H
#define GR_SECURITY_SASL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "security/sasl_config.h"

#define GR_SASL_CLIENT_CONTINUE 1 /* a token to send, then the server's answer to step */
#define GR_SASL_CLIENT_DONE     0 /* authenticated */

typedef struct gr_sasl_client gr_sasl_client_t;

/* A new exchange for user and password (copied). NULL on ENOMEM or an unknown mechanism. */
gr_sasl_client_t *gr_sasl_client_new(gr_sasl_mechanism_t m, const char *user, const char *password);

/*
 * Feeds the server's last token (NULL, 0 at first) and gives the next one
 * (*out belongs to the exchange until the next step or free).
 * Returns GR_SASL_CLIENT_CONTINUE, GR_SASL_CLIENT_DONE, -EACCES (the server
 * refused, or did not prove it knows the credential), -EBADMSG (a malformed
 * server token) or -ENOMEM / -EIO.
 */
int gr_sasl_client_step(gr_sasl_client_t *c, const uint8_t *in, size_t in_len,
                        const uint8_t **out /* out */, size_t *out_len /* out */);

/* Wipes the password and keys and frees c. c may be NULL. */
void gr_sasl_client_free(gr_sasl_client_t *c);

#endif
