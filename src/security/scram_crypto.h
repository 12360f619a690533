/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM's primitives (RFC 5802 section 3) over OpenSSL's libcrypto, shared
 * by the broker's server side and the clients (gregor-admin, inter-broker):
 *   SaltedPassword := Hi(password, salt, i)      PBKDF2 with HMAC-H
 *   ClientKey := HMAC(SaltedPassword, "Client Key"); StoredKey := H(ClientKey)
 *   ServerKey := HMAC(SaltedPassword, "Server Key")
 * and base64 as SCRAM and Kafka's credential strings write it.
 *
 * Runs on: any thread.
 */
#ifndef GR_SECURITY_SCRAM_CRYPTO_H
#define GR_SECURITY_SCRAM_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "security/sasl_config.h"

#define GR_SCRAM_HASH_MAX 64 /* SHA-512's output */
/* Kafka's bounds on a credential's iteration count (ScramMechanism). */
#define GR_SCRAM_MIN_ITERATIONS 4096
#define GR_SCRAM_MAX_ITERATIONS 16384

/* The hash length of SCRAM mechanism m (32 or 64). */
size_t gr_scram_hash_len(gr_sasl_mechanism_t m);

/* out (hash_len bytes) := HMAC-H(key, data). 0 or -EIO. */
int gr_scram_hmac(gr_sasl_mechanism_t m, const uint8_t *key, size_t key_len, const void *data,
                  size_t len, uint8_t *out);
/* out := H(data). 0 or -EIO. */
int gr_scram_hash(gr_sasl_mechanism_t m, const uint8_t *data, size_t len, uint8_t *out);
/* out := Hi(password, salt, iterations). 0 or -EIO. */
int gr_scram_salted_password(gr_sasl_mechanism_t m, const char *password, const uint8_t *salt,
                             size_t salt_len, int32_t iterations, uint8_t *out);
/* stored_key and server_key from a salted password. 0 or -EIO. */
int gr_scram_keys(gr_sasl_mechanism_t m, const uint8_t *salted, uint8_t *stored_key,
                  uint8_t *server_key);

/* Base64 of data into out (size >= 4 * ceil(len / 3) + 1). Returns the text length or -ENOSPC. */
int gr_base64_encode(const uint8_t *data, size_t len, char *out, size_t size);
/* Decodes text (len chars, padded base64) into out. Returns the byte count, -EINVAL or -ENOSPC. */
int gr_base64_decode(const char *text, size_t len, uint8_t *out, size_t size);

/* Constant-time equality of two byte strings of the same length. */
bool gr_scram_equal(const void *a, const void *b, size_t len);

#endif
