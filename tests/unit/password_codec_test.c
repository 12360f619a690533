/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Password configs encrypted for the store (metadata/password_codec.h):
 * a value in Kafka's form made outside Gregor (PBKDF2 from Python's hashlib,
 * AES-CBC from the openssl tool, as Kafka's EncryptingPasswordEncoder would
 * with these salt and IV) decodes; encode/decode round trips, another secret
 * and a damaged text fail, no secret or an unsupported cipher is refused with
 * a message. Also the listener SSL keys' names (metadata/listener_configs.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/config.h"
#include "metadata/listener_configs.h"
#include "metadata/password_codec.h"

/* secret "kafka-secret", password "p@ss-wörd", salt bytes 0..255, IV bytes 16..31. */
static const char kafka_form[] =
    "keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,"
    "salt:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BB"
    "QkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4"
    "iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3O"
    "z9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==,iterations:4096,"
    "encryptedPassword:DXUX6AyPBbo/fmdgobUkoQ==,passwordLength:9,"
    "initializationVector:EBESExQVFhcYGRobHB0eHw==";

static void test_decode_kafka_form(void **state)
{
    (void)state;
    char *plain = NULL;
    assert_int_equal(gr_password_decode("kafka-secret", kafka_form, &plain), 0);
    assert_string_equal(plain, "p@ss-w\xc3\xb6rd");
    free(plain);
    assert_int_equal(gr_password_decode("another-secret", kafka_form, &plain), -EINVAL);
    assert_int_equal(gr_password_decode(NULL, kafka_form, &plain), -EINVAL);
    assert_int_equal(gr_password_decode("kafka-secret", "keyLength:128", &plain), -EINVAL);
}

static void set(gr_config_t *cfg, const char *key, const char *value)
{
    char err[256];
    assert_int_equal(
        gr_config_set(cfg, key, value, GR_CONFIG_SOURCE_OVERRIDE, NULL, err, sizeof err), 0);
}

static void test_round_trip(void **state)
{
    (void)state;
    gr_config_t cfg;
    char err[256] = "", *text = NULL, *plain = NULL;
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(gr_password_encode(&cfg, "pw", &text, err, sizeof err), -EINVAL);
    assert_string_equal(err, "Password encoder secret not configured");
    set(&cfg, "password.encoder.secret", "s3cret");
    assert_int_equal(gr_password_encode(&cfg, "key-password", &text, err, sizeof err), 0);
    assert_null(strstr(text, "key-password"));
    assert_non_null(strstr(text, "keyFactoryAlgorithm:PBKDF2WithHmacSHA512,"));
    assert_non_null(strstr(text, "passwordLength:12,"));
    assert_int_equal(gr_password_decode("s3cret", text, &plain), 0);
    assert_string_equal(plain, "key-password");
    free(plain);
    free(text);
    set(&cfg, "password.encoder.key.length", "256");
    assert_int_equal(gr_password_encode(&cfg, "x", &text, err, sizeof err), 0);
    assert_int_equal(gr_password_decode("s3cret", text, &plain), 0);
    assert_string_equal(plain, "x");
    free(plain);
    free(text);
    set(&cfg, "password.encoder.cipher.algorithm", "AES/GCM/NoPadding");
    assert_int_equal(gr_password_encode(&cfg, "x", &text, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "AES/GCM/NoPadding"));
    gr_config_fini(&cfg);
}

static void test_listener_keys(void **state)
{
    (void)state;
    char listener[64];
    const char *base = NULL;
    assert_true(gr_listener_ssl_key("listener.name.SSL.ssl.keystore.location", listener,
                                    sizeof listener, &base));
    assert_string_equal(listener, "ssl");
    assert_string_equal(base, "ssl.keystore.location");
    assert_true(gr_listener_ssl_key_is_password("ssl.key.password"));
    assert_false(gr_listener_ssl_key_is_password("ssl.keystore.key"));
    assert_false(
        gr_listener_ssl_key("listener.name.ssl.ssl.client.auth", listener, sizeof listener, &base));
    assert_false(gr_listener_ssl_key("ssl.keystore.location", listener, sizeof listener, &base));
    assert_true(gr_listener_ssl_key_base("ssl.truststore.certificates"));

    gr_listener_configs_t set = {0}, edit = {0};
    assert_int_equal(gr_listener_configs_set(&set, "listener.name.SSL.ssl.keystore.location", "/a"),
                     0);
    assert_string_equal(gr_listener_configs_get(&set, "SSL", "ssl.keystore.location"), "/a");
    assert_int_equal(
        gr_listener_configs_set(&edit, "listener.name.ssl.ssl.keystore.location", NULL), 0);
    assert_int_equal(gr_listener_configs_overlay(&set, &edit), 0);
    assert_int_equal(set.count, 0);
    gr_listener_configs_clear(&set);
    gr_listener_configs_clear(&edit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_kafka_form),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_listener_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
