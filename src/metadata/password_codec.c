/* SPDX-License-Identifier: Apache-2.0 */
/* Password configs encrypted for the store; see password_codec.h. */
#include "metadata/password_codec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#define SALT_LEN        256 /* Kafka's */
#define IV_LEN          16  /* AES block */
#define KEY_MAX_LEN     32  /* AES-256 */
#define FIELD_MAX       1024
#define DEFAULT_FACTORY "PBKDF2WithHmacSHA512"
#define CIPHER_CBC      "AES/CBC/PKCS5Padding"

/* The digest of a PBKDF2 key factory name, or NULL. */
static const EVP_MD *factory_md(const char *name)
{
    if (strcmp(name, "PBKDF2WithHmacSHA512") == 0)
        return EVP_sha512();
    if (strcmp(name, "PBKDF2WithHmacSHA256") == 0)
        return EVP_sha256();
    if (strcmp(name, "PBKDF2WithHmacSHA1") == 0)
        return EVP_sha1();
    return NULL;
}

/* AES-CBC of a key length in bits, or NULL. */
static const EVP_CIPHER *cbc_cipher(long bits)
{
    return bits == 128   ? EVP_aes_128_cbc()
           : bits == 192 ? EVP_aes_192_cbc()
           : bits == 256 ? EVP_aes_256_cbc()
                         : NULL;
}

/* Java's String.length(): UTF-16 code units of UTF-8 text. */
static size_t utf16_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            n += *p >= 0xF0 ? 2 : 1;
    return n;
}

/* Base64 of len bytes into a malloc'd string, or NULL. */
static char *base64(const unsigned char *data, size_t len)
{
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    if (out)
        EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    return out;
}

/* Decodes base64 text into out (at most cap bytes). Returns the length or -1. */
static int unbase64(const char *text, unsigned char *out, size_t cap)
{
    size_t len = strlen(text);
    if (len == 0 || len % 4 || len / 4 * 3 > cap)
        return -1;
    int n = EVP_DecodeBlock(out, (const unsigned char *)text, (int)len);
    if (n < 0)
        return -1;
    return n - (text[len - 1] == '=') - (text[len - 2] == '=');
}

/* AES-CBC of in with key and iv, encrypting or not. Returns the output length or -1. */
static int run_cipher(const EVP_CIPHER *cipher, bool encrypt, const unsigned char *key,
                      const unsigned char *iv, const unsigned char *in, int in_len,
                      unsigned char *out)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, tail = 0;
    bool ok = c && EVP_CipherInit_ex(c, cipher, NULL, key, iv, encrypt ? 1 : 0) &&
              EVP_CipherUpdate(c, out, &n, in, in_len) && EVP_CipherFinal_ex(c, out + n, &tail);
    EVP_CIPHER_CTX_free(c);
    return ok ? n + tail : -1;
}

int gr_password_encode(const gr_config_t *cfg, const char *password, char **out, char *err,
                       size_t errlen)
{
    const char *secret = cfg->password_encoder_secret;
    const char *factory = cfg->password_encoder_keyfactory_algorithm
                              ? cfg->password_encoder_keyfactory_algorithm
                              : DEFAULT_FACTORY;
    const char *cipher_name = cfg->password_encoder_cipher_algorithm;
    long bits = cfg->password_encoder_key_length;
    const EVP_MD *md = factory_md(factory);
    const EVP_CIPHER *cipher = cbc_cipher(bits);
    if (!secret || !secret[0]) {
        snprintf(err, errlen, "Password encoder secret not configured");
        return -EINVAL;
    }
    if (!md || !cipher || strcmp(cipher_name, CIPHER_CBC) != 0) {
        snprintf(err, errlen,
                 "password.encoder.keyfactory.algorithm=%s, cipher.algorithm=%s, key.length=%ld: "
                 "Gregor encodes with PBKDF2WithHmacSHA512/256/1, " CIPHER_CBC " and 128, 192 or "
                 "256 bits",
                 factory, cipher_name, bits);
        return -EINVAL;
    }
    size_t plain_len = strlen(password);
    unsigned char salt[SALT_LEN], iv[IV_LEN], key[KEY_MAX_LEN];
    unsigned char *sealed = malloc(plain_len + IV_LEN);
    char *salt64 = NULL, *iv64 = NULL, *sealed64 = NULL;
    int rc = -ENOMEM, n = -1;
    if (sealed && RAND_bytes(salt, sizeof salt) == 1 && RAND_bytes(iv, sizeof iv) == 1 &&
        PKCS5_PBKDF2_HMAC(secret, (int)strlen(secret), salt, sizeof salt,
                          cfg->password_encoder_iterations, md, (int)(bits / 8), key) == 1)
        n = run_cipher(cipher, true, key, iv, (const unsigned char *)password, (int)plain_len,
                       sealed);
    if (n >= 0 && (salt64 = base64(salt, sizeof salt)) && (iv64 = base64(iv, sizeof iv)) &&
        (sealed64 = base64(sealed, (size_t)n))) {
        size_t size = strlen(salt64) + strlen(iv64) + strlen(sealed64) + 256;
        if ((*out = malloc(size)) != NULL) {
            snprintf(
                *out, size,
                "keyFactoryAlgorithm:%s,cipherAlgorithm:%s,keyLength:%ld,salt:%s,iterations:%d,"
                "encryptedPassword:%s,passwordLength:%zu,initializationVector:%s",
                factory, cipher_name, bits, salt64, cfg->password_encoder_iterations, sealed64,
                utf16_length(password), iv64);
            rc = 0;
        }
    }
    OPENSSL_cleanse(key, sizeof key);
    free(sealed);
    free(salt64);
    free(iv64);
    free(sealed64);
    return rc;
}

/* The value of name in Kafka's "k:v,k:v" text into buf; false when absent or too long. */
static bool field(const char *text, const char *name, char *buf, size_t size)
{
    size_t name_len = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, name, name_len) != 0 || p[name_len] != ':')
            continue;
        const char *v = p + name_len + 1;
        size_t len = strcspn(v, ",");
        if (len >= size)
            return false;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return true;
    }
    return false;
}

int gr_password_decode(const char *secret, const char *text, char **out)
{
    char factory[FIELD_MAX], cipher_name[FIELD_MAX], bits_text[FIELD_MAX], iter_text[FIELD_MAX];
    char salt64[FIELD_MAX], iv64[FIELD_MAX], sealed64[FIELD_MAX], length_text[FIELD_MAX];
    if (!secret || !field(text, "keyFactoryAlgorithm", factory, sizeof factory) ||
        !field(text, "cipherAlgorithm", cipher_name, sizeof cipher_name) ||
        !field(text, "keyLength", bits_text, sizeof bits_text) ||
        !field(text, "iterations", iter_text, sizeof iter_text) ||
        !field(text, "salt", salt64, sizeof salt64) ||
        !field(text, "initializationVector", iv64, sizeof iv64) ||
        !field(text, "encryptedPassword", sealed64, sizeof sealed64) ||
        !field(text, "passwordLength", length_text, sizeof length_text))
        return -EINVAL;
    const EVP_MD *md = factory_md(factory);
    const EVP_CIPHER *cipher = cbc_cipher(strtol(bits_text, NULL, 10));
    long iterations = strtol(iter_text, NULL, 10);
    unsigned char salt[FIELD_MAX], iv[FIELD_MAX], sealed[FIELD_MAX], key[KEY_MAX_LEN];
    int salt_len = unbase64(salt64, salt, sizeof salt);
    int iv_len = unbase64(iv64, iv, sizeof iv);
    int sealed_len = unbase64(sealed64, sealed, sizeof sealed);
    if (!md || !cipher || strcmp(cipher_name, CIPHER_CBC) != 0 || iterations < 1 ||
        iterations > INT32_MAX || salt_len <= 0 || iv_len != IV_LEN || sealed_len <= 0)
        return -EINVAL;
    char *plain = malloc((size_t)sealed_len + 1);
    if (!plain)
        return -ENOMEM;
    int n = -1;
    if (PKCS5_PBKDF2_HMAC(secret, (int)strlen(secret), salt, salt_len, (int)iterations, md,
                          EVP_CIPHER_key_length(cipher), key) == 1)
        n = run_cipher(cipher, false, key, iv, sealed, sealed_len, (unsigned char *)plain);
    OPENSSL_cleanse(key, sizeof key);
    if (n < 0 || memchr(plain, '\0', (size_t)n)) {
        free(plain);
        return -EINVAL; /* another secret: the padding check fails (or, rarely, garbage) */
    }
    plain[n] = '\0';
    if (utf16_length(plain) != (size_t)strtol(length_text, NULL, 10)) {
        OPENSSL_cleanse(plain, (size_t)n);
        free(plain);
        return -EINVAL; /* Kafka's sanity check of the length */
    }
    *out = plain;
    return 0;
}
