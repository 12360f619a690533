/* SPDX-License-Identifier: Apache-2.0 */
/* SCRAM's primitives over libcrypto: see scram_crypto.h. Runs on: any thread. */
#include "security/scram_crypto.h"

#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#define CLIENT_KEY_LABEL "Client Key"
#define SERVER_KEY_LABEL "Server Key"

static const EVP_MD *scram_md(gr_sasl_mechanism_t m)
{
    return m == GR_SASL_SCRAM_SHA_512 ? EVP_sha512() : EVP_sha256();
}

size_t gr_scram_hash_len(gr_sasl_mechanism_t m)
{
    return (size_t)EVP_MD_get_size(scram_md(m));
}

int gr_scram_hmac(gr_sasl_mechanism_t m, const uint8_t *key, size_t key_len, const void *data,
                  size_t len, uint8_t *out)
{
    unsigned out_len = 0;
    return HMAC(scram_md(m), key, (int)key_len, data, len, out, &out_len) ? 0 : -EIO;
}

int gr_scram_hash(gr_sasl_mechanism_t m, const uint8_t *data, size_t len, uint8_t *out)
{
    return EVP_Digest(data, len, out, NULL, scram_md(m), NULL) == 1 ? 0 : -EIO;
}

int gr_scram_salted_password(gr_sasl_mechanism_t m, const char *password, const uint8_t *salt,
                             size_t salt_len, int32_t iterations, uint8_t *out)
{
    int ok = PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)salt_len, iterations,
                               scram_md(m), (int)gr_scram_hash_len(m), out);
    return ok == 1 ? 0 : -EIO;
}

int gr_scram_keys(gr_sasl_mechanism_t m, const uint8_t *salted, uint8_t *stored_key,
                  uint8_t *server_key)
{
    uint8_t client_key[GR_SCRAM_HASH_MAX];
    size_t n = gr_scram_hash_len(m);
    int rc = gr_scram_hmac(m, salted, n, CLIENT_KEY_LABEL, strlen(CLIENT_KEY_LABEL), client_key);
    if (rc == 0)
        rc = gr_scram_hash(m, client_key, n, stored_key);
    if (rc == 0)
        rc = gr_scram_hmac(m, salted, n, SERVER_KEY_LABEL, strlen(SERVER_KEY_LABEL), server_key);
    OPENSSL_cleanse(client_key, sizeof client_key);
    return rc;
}

int gr_base64_encode(const uint8_t *data, size_t len, char *out, size_t size)
{
    size_t need = 4 * ((len + 2) / 3) + 1;
    if (size < need)
        return -ENOSPC;
    return EVP_EncodeBlock((unsigned char *)out, data, (int)len);
}

int gr_base64_decode(const char *text, size_t len, uint8_t *out, size_t size)
{
    if (len % 4 != 0)
        return -EINVAL;
    if (size < len / 4 * 3)
        return -ENOSPC;
    int n = EVP_DecodeBlock(out, (const unsigned char *)text, (int)len);
    if (n < 0)
        return -EINVAL;
    /* EVP_DecodeBlock counts the padding as zero bytes. */
    for (size_t i = len; i > 0 && text[i - 1] == '='; i--)
        n--;
    return n;
}

bool gr_scram_equal(const void *a, const void *b, size_t len)
{
    return CRYPTO_memcmp(a, b, len) == 0;
}
