/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Password configs set live, as stored in /config/brokers/<id>: encrypted
 * with password.encoder.secret in Kafka's own text form (its
 * EncryptingPasswordEncoder), so a Kafka broker given the same secret reads
 * what Gregor wrote and the other way round:
 *
 *   keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,
 *   keyLength:128,salt:<base64>,iterations:4096,encryptedPassword:<base64>,
 *   passwordLength:<n>,initializationVector:<base64>
 *
 * The key is PBKDF2 over the secret with a fresh 256-byte salt; the cipher
 * AES in CBC mode with PKCS#5 padding and a fresh IV. Key factories:
 * PBKDF2WithHmacSHA512 (Kafka's default), PBKDF2WithHmacSHA256 and
 * PBKDF2WithHmacSHA1; ciphers: AES/CBC/PKCS5Padding only (Kafka's default;
 * AES/GCM is refused with a message).
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_METADATA_PASSWORD_CODEC_H
#define GR_METADATA_PASSWORD_CODEC_H

#include <stddef.h>

#include "core/config.h"

/*
 * Encrypts password with cfg's password.encoder.* settings. Returns 0 with
 * *out (malloc'd text), or -EINVAL with err filled (no secret configured,
 * an unsupported algorithm or key length), or -ENOMEM.
 */
int gr_password_encode(const gr_config_t *cfg, const char *password, char **out /* out */,
                       char *err, size_t errlen);

/*
 * Decrypts text written by gr_password_encode or by Kafka with secret.
 * Returns 0 with *out (malloc'd), -EINVAL (malformed, another secret, an
 * unsupported algorithm) or -ENOMEM.
 */
int gr_password_decode(const char *secret, const char *text, char **out /* out */);

#endif
