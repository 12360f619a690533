/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client side of SASL (what brokers use to log in to each other) run
 * against the broker's own server exchanges: SCRAM-SHA-256 and -512 logins
 * that succeed, a wrong password refused by the server, a server that does
 * not know the credential caught by the client, malformed server tokens,
 * a mandatory extension refused, and PLAIN's token.
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

#include "security/sasl_client.h"
#include "security/sasl_server.h"
#include "security/scram_crypto.h"
#include "security/scram_users.h"

static const char *mechanism_name(gr_sasl_mechanism_t m)
{
    return m == GR_SASL_SCRAM_SHA_256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

/* Users holding user's credential for password under mechanism m. */
static gr_scram_users_t *users_with(gr_sasl_mechanism_t m, const char *user, const char *password)
{
    gr_scram_credential_t c = {0};
    uint8_t salted[GR_SCRAM_HASH_MAX];
    memcpy(c.salt, "a-fixed-test-salt", 16);
    c.salt_len = 16;
    c.iterations = 4096;
    assert_int_equal(
        gr_scram_salted_password(m, password, c.salt, c.salt_len, c.iterations, salted), 0);
    assert_int_equal(gr_scram_keys(m, salted, c.stored_key, c.server_key), 0);
    char text[GR_SCRAM_CREDENTIAL_MAX], doc[GR_SCRAM_CREDENTIAL_MAX * 2];
    assert_int_equal(gr_scram_credential_format(&c, m, text, sizeof text), 0);
    snprintf(doc, sizeof doc, "{\"version\":1,\"config\":{\"%s\":\"%s\"}}", mechanism_name(m),
             text);
    gr_scram_users_t *u = gr_scram_users_new();
    assert_non_null(u);
    assert_int_equal(gr_scram_users_apply(u, user, doc, strlen(doc)), 0);
    return u;
}

/*
 * Runs client c against server s until one side ends. Returns the client's
 * last result; *server_err gets the server's last error.
 */
static int converse(gr_sasl_client_t *c, gr_scram_server_t *s, gr_kerr_t *server_err)
{
    const uint8_t *in = NULL, *out;
    size_t in_len = 0, out_len;
    gr_sasl_reply_t reply = {0};
    *server_err = GR_KERR_NONE;
    for (;;) {
        int rc = gr_sasl_client_step(c, in, in_len, &out, &out_len);
        free(reply.token);
        reply.token = NULL;
        if (rc != GR_SASL_CLIENT_CONTINUE)
            return rc;
        *server_err = gr_scram_server_step(s, out, out_len, &reply);
        if (*server_err != GR_KERR_NONE)
            return rc;
        in = reply.token;
        in_len = reply.len;
    }
}

static void login(gr_sasl_mechanism_t m)
{
    gr_scram_users_t *u = users_with(m, "broker", "broker-secret");
    gr_scram_server_t *s = gr_scram_server_new(m, u, NULL);
    gr_sasl_client_t *c = gr_sasl_client_new(m, "broker", "broker-secret");
    assert_non_null(c);
    gr_kerr_t server_err;
    assert_int_equal(converse(c, s, &server_err), GR_SASL_CLIENT_DONE);
    assert_int_equal(server_err, GR_KERR_NONE);
    assert_string_equal(gr_scram_server_user(s), "broker");
    gr_sasl_client_free(c);
    gr_scram_server_free(s);
    gr_scram_users_free(u);
}

static void test_scram_sha256_login(void **state)
{
    (void)state;
    login(GR_SASL_SCRAM_SHA_256);
}

static void test_scram_sha512_login(void **state)
{
    (void)state;
    login(GR_SASL_SCRAM_SHA_512);
}

static void test_wrong_password_refused_by_server(void **state)
{
    (void)state;
    gr_scram_users_t *u = users_with(GR_SASL_SCRAM_SHA_512, "broker", "broker-secret");
    gr_scram_server_t *s = gr_scram_server_new(GR_SASL_SCRAM_SHA_512, u, NULL);
    gr_sasl_client_t *c = gr_sasl_client_new(GR_SASL_SCRAM_SHA_512, "broker", "guess");
    gr_kerr_t server_err;
    assert_int_equal(converse(c, s, &server_err), GR_SASL_CLIENT_CONTINUE);
    assert_int_equal(server_err, GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_sasl_client_free(c);
    gr_scram_server_free(s);
    gr_scram_users_free(u);
}

/*
 * A SCRAM-SHA-256 client for "broker" that has sent its client-first;
 * nonce gets the r= value it sent, for the server-first a test forges.
 */
static gr_sasl_client_t *started_client(const char *password, char *nonce, size_t nonce_size)
{
    gr_sasl_client_t *c = gr_sasl_client_new(GR_SASL_SCRAM_SHA_256, "broker", password);
    assert_non_null(c);
    const uint8_t *out;
    size_t out_len;
    assert_int_equal(gr_sasl_client_step(c, NULL, 0, &out, &out_len), GR_SASL_CLIENT_CONTINUE);
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)out_len, (const char *)out);
    const char *r = strstr(first, ",r=");
    assert_non_null(r);
    snprintf(nonce, nonce_size, "%s", r + strlen(",r="));
    return c;
}

/* A server with another password's credential accepts nothing; its proof must not pass either. */
static void test_forged_server_signature_refused(void **state)
{
    (void)state;
    char nonce[128], first[256];
    gr_sasl_client_t *c = started_client("broker-secret", nonce, sizeof nonce);
    const uint8_t *out;
    size_t out_len;
    snprintf(first, sizeof first, "r=%sSERVER,s=YS1maXhlZC10ZXN0LXNhbHQ=,i=4096", nonce);
    assert_int_equal(gr_sasl_client_step(c, (const uint8_t *)first, strlen(first), &out, &out_len),
                     GR_SASL_CLIENT_CONTINUE);
    const char *forged = "v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    assert_int_equal(
        gr_sasl_client_step(c, (const uint8_t *)forged, strlen(forged), &out, &out_len), -EACCES);
    gr_sasl_client_free(c);
}

static void test_malformed_server_first(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "garbage",
        "r=someone-elses-nonce,s=c2FsdA==,i=4096",
        "s=c2FsdA==,i=4096",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char nonce[128];
        gr_sasl_client_t *c = started_client("pw", nonce, sizeof nonce);
        const uint8_t *out;
        size_t out_len;
        assert_int_equal(
            gr_sasl_client_step(c, (const uint8_t *)bad[i], strlen(bad[i]), &out, &out_len),
            -EBADMSG);
        gr_sasl_client_free(c);
    }
}

/* A server-first opening with m= (an extension we do not know) is refused. */
static void test_mandatory_extension_refused(void **state)
{
    (void)state;
    char nonce[128], server_first[512];
    gr_sasl_client_t *c = started_client("pw", nonce, sizeof nonce);
    const uint8_t *out;
    size_t out_len;
    snprintf(server_first, sizeof server_first, "m=ext,r=%sserver,s=c2FsdA==,i=4096", nonce);
    assert_int_equal(
        gr_sasl_client_step(c, (const uint8_t *)server_first, strlen(server_first), &out, &out_len),
        -EBADMSG);
    gr_sasl_client_free(c);
}

static void test_plain_token(void **state)
{
    (void)state;
    gr_sasl_client_t *c = gr_sasl_client_new(GR_SASL_PLAIN, "broker", "broker-secret");
    const uint8_t *out;
    size_t out_len;
    assert_int_equal(gr_sasl_client_step(c, NULL, 0, &out, &out_len), GR_SASL_CLIENT_CONTINUE);
    static const char want[] = "\0broker\0broker-secret";
    assert_int_equal(out_len, sizeof want - 1);
    assert_memory_equal(out, want, out_len);
    assert_int_equal(gr_sasl_client_step(c, NULL, 0, &out, &out_len), GR_SASL_CLIENT_DONE);
    gr_sasl_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scram_sha256_login),
        cmocka_unit_test(test_scram_sha512_login),
        cmocka_unit_test(test_wrong_password_refused_by_server),
        cmocka_unit_test(test_forged_server_signature_refused),
        cmocka_unit_test(test_malformed_server_first),
        cmocka_unit_test(test_mandatory_extension_refused),
        cmocka_unit_test(test_plain_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
