/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM and PLAIN server exchanges and their pieces: RFC 7677's
 * SCRAM-SHA-256 example (user "user", password "pencil") replayed against
 * the server with the RFC's server nonce, Kafka's credential strings, JAAS
 * parsing, and malformed or truncated client messages refused cleanly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "security/jaas.h"
#include "security/sasl_server.h"
#include "security/scram_crypto.h"
#include "security/scram_users.h"

#define RFC_CLIENT_FIRST "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define RFC_SERVER_NONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define RFC_SALT         "W22ZaJ0SNY7soEsUEjb6gQ=="
#define RFC_SERVER_FIRST "r=rOprNGfwEbeRWgbNEkqO" RFC_SERVER_NONCE ",s=" RFC_SALT ",i=4096"
#define RFC_CLIENT_FINAL                                                                           \
    "c=biws,r=rOprNGfwEbeRWgbNEkqO" RFC_SERVER_NONCE                                               \
    ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define RFC_SERVER_FINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

/* A cache holding "user" with RFC 7677's password, salt and iterations. */
static gr_scram_users_t *rfc_users(void)
{
    gr_scram_credential_t c = {0};
    uint8_t salted[GR_SCRAM_HASH_MAX];
    int n = gr_base64_decode(RFC_SALT, strlen(RFC_SALT), c.salt, sizeof c.salt);
    assert_int_equal(n, 16);
    c.salt_len = (size_t)n;
    c.iterations = 4096;
    assert_int_equal(gr_scram_salted_password(GR_SASL_SCRAM_SHA_256, "pencil", c.salt, c.salt_len,
                                              c.iterations, salted),
                     0);
    assert_int_equal(gr_scram_keys(GR_SASL_SCRAM_SHA_256, salted, c.stored_key, c.server_key), 0);
    char text[GR_SCRAM_CREDENTIAL_MAX], doc[GR_SCRAM_CREDENTIAL_MAX * 2];
    assert_int_equal(gr_scram_credential_format(&c, GR_SASL_SCRAM_SHA_256, text, sizeof text), 0);
    snprintf(doc, sizeof doc, "{\"version\":1,\"config\":{\"SCRAM-SHA-256\":\"%s\"}}", text);
    gr_scram_users_t *u = gr_scram_users_new();
    assert_non_null(u);
    assert_int_equal(gr_scram_users_apply(u, "user", doc, strlen(doc)), 0);
    return u;
}

static gr_kerr_t step_text(gr_scram_server_t *s, const char *in, gr_sasl_reply_t *r)
{
    return gr_scram_server_step(s, (const uint8_t *)in, strlen(in), r);
}

static void test_rfc7677_exchange(void **state)
{
    (void)state;
    gr_scram_users_t *u = rfc_users();
    gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_256, u, RFC_SERVER_NONCE);
    gr_sasl_reply_t r;
    assert_int_equal(step_text(s, RFC_CLIENT_FIRST, &r), GR_KERR_NONE);
    assert_false(r.done);
    assert_int_equal(r.len, strlen(RFC_SERVER_FIRST));
    assert_memory_equal(r.token, RFC_SERVER_FIRST, r.len);
    free(r.token);
    assert_int_equal(step_text(s, RFC_CLIENT_FINAL, &r), GR_KERR_NONE);
    assert_true(r.done);
    assert_int_equal(r.len, strlen(RFC_SERVER_FINAL));
    assert_memory_equal(r.token, RFC_SERVER_FINAL, r.len);
    free(r.token);
    assert_string_equal(gr_scram_server_user(s), "user");
    assert_int_equal(step_text(s, RFC_CLIENT_FINAL, &r), GR_KERR_ILLEGAL_SASL_STATE);
    gr_scram_server_free(s);
    gr_scram_users_free(u);
}

static void test_rfc7677_wrong_proof(void **state)
{
    (void)state;
    gr_scram_users_t *u = rfc_users();
    gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_256, u, RFC_SERVER_NONCE);
    gr_sasl_reply_t r;
    assert_int_equal(step_text(s, RFC_CLIENT_FIRST, &r), GR_KERR_NONE);
    free(r.token);
    char bad[] = RFC_CLIENT_FINAL;
    bad[strlen(bad) - 3] ^= 1;
    assert_int_equal(step_text(s, bad, &r), GR_KERR_SASL_AUTHENTICATION_FAILED);
    assert_null(r.token);
    gr_scram_server_free(s);
    gr_scram_users_free(u);
}

/* Every truncation of both client messages, and some garbage, fails cleanly. */
static void test_truncated_and_garbage(void **state)
{
    (void)state;
    gr_scram_users_t *u = rfc_users();
    const char *garbage[] = {"",
                             "x",
                             "p=tls-unique,,n=user,r=a",
                             "n,,n=us=er,r=a",
                             "n,,n=user,r=a,tokenauth=true",
                             "n,a=other,n=user,r=a",
                             ",,,,"};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_256, u, RFC_SERVER_NONCE);
        gr_sasl_reply_t r;
        assert_int_equal(step_text(s, garbage[i], &r), GR_KERR_SASL_AUTHENTICATION_FAILED);
        gr_scram_server_free(s);
    }
    for (size_t cut = 0; cut < strlen(RFC_CLIENT_FINAL); cut++) {
        gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_256, u, RFC_SERVER_NONCE);
        gr_sasl_reply_t r;
        assert_int_equal(step_text(s, RFC_CLIENT_FIRST, &r), GR_KERR_NONE);
        free(r.token);
        assert_int_equal(gr_scram_server_step(s, (const uint8_t *)RFC_CLIENT_FINAL, cut, &r),
                         GR_KERR_SASL_AUTHENTICATION_FAILED);
        gr_scram_server_free(s);
    }
    static uint8_t huge[1 << 20];
    memset(huge, 'n', sizeof huge);
    gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_512, u, NULL);
    gr_sasl_reply_t r;
    assert_int_equal(gr_scram_server_step(s, huge, sizeof huge, &r),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_scram_server_free(s);
    gr_scram_users_free(u);
}

static void test_credential_format(void **state)
{
    (void)state;
    gr_scram_credential_t c;
    const char *text = "salt=c2FsdA==,stored_key=" /* 32 zero bytes, then 32 0xff bytes */
                       "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=,server_key="
                       "//////////////////////////////////////////8=,iterations=8192";
    assert_int_equal(gr_scram_credential_parse(text, GR_SASL_SCRAM_SHA_256, &c), 0);
    assert_int_equal(c.salt_len, 4);
    assert_memory_equal(c.salt, "salt", 4);
    assert_int_equal(c.iterations, 8192);
    assert_int_equal(c.server_key[31], 0xff);
    char out[GR_SCRAM_CREDENTIAL_MAX];
    assert_int_equal(gr_scram_credential_format(&c, GR_SASL_SCRAM_SHA_256, out, sizeof out), 0);
    assert_string_equal(out, text);
    /* A SHA-256 key is not a SHA-512 one. */
    assert_int_equal(gr_scram_credential_parse(text, GR_SASL_SCRAM_SHA_512, &c), -EINVAL);
    assert_int_equal(gr_scram_credential_parse("salt=c2FsdA==", GR_SASL_SCRAM_SHA_256, &c),
                     -EINVAL);
}

static void test_jaas(void **state)
{
    (void)state;
    gr_jaas_t j;
    char err[256];
    const char *line = "org.apache.kafka.common.security.plain.PlainLoginModule required "
                       "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
                       "user_alice=\"al\\\"ice\" bare=word ;";
    assert_int_equal(gr_jaas_parse(line, &j, err, sizeof err), 0);
    assert_string_equal(j.module, "org.apache.kafka.common.security.plain.PlainLoginModule");
    assert_string_equal(j.flag, "required");
    assert_string_equal(gr_jaas_find(&j, "username"), "admin");
    assert_string_equal(gr_jaas_find(&j, "user_alice"), "al\"ice");
    assert_string_equal(gr_jaas_find(&j, "bare"), "word");
    assert_null(gr_jaas_find(&j, "user_bob"));
    gr_jaas_fini(&j);
    const char *bad[] = {"",
                         "Module",
                         "Module required user=\"x\"",
                         "Module required user;",
                         "Module required user=\"x;",
                         "M required a=b; N required c=d;"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(gr_jaas_parse(bad[i], &j, err, sizeof err), -EINVAL);
        assert_null(strstr(err, "x\"")); /* values (passwords) are never quoted */
        gr_jaas_fini(&j);
    }
}

static void test_plain(void **state)
{
    (void)state;
    gr_jaas_t j;
    char err[256], user[GR_SASL_USER_MAX];
    assert_int_equal(gr_jaas_parse("M required user_alice=\"secret\";", &j, err, sizeof err), 0);
    assert_int_equal(
        gr_sasl_plain_check(&j, (const uint8_t *)"\0alice\0secret", 13, user, sizeof user),
        GR_KERR_NONE);
    assert_string_equal(user, "alice");
    assert_int_equal(
        gr_sasl_plain_check(&j, (const uint8_t *)"alice\0alice\0secret", 18, user, sizeof user),
        GR_KERR_NONE);
    const struct {
        const char *bytes;
        size_t len;
    } bad[] = {{"\0alice\0secreT", 13},
               {"\0alice\0secre", 12},
               {"\0alice\0secret2", 14},
               {"bob\0alice\0secret", 16},
               {"\0bob\0secret", 11},
               {"\0alice", 6},
               {"", 0},
               {"\0\0secret", 8}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(
            gr_sasl_plain_check(&j, (const uint8_t *)bad[i].bytes, bad[i].len, user, sizeof user),
            GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_jaas_fini(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7677_exchange),
        cmocka_unit_test(test_rfc7677_wrong_proof),
        cmocka_unit_test(test_truncated_and_garbage),
        cmocka_unit_test(test_credential_format),
        cmocka_unit_test(test_jaas),
        cmocka_unit_test(test_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
