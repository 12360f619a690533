/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS settings (net/tls.h, net/tls_config.h): start-up errors for keystores
 * Gregor cannot use (missing file, JKS and PKCS12 types, no keystore at all,
 * a file with no certificate), bad ssl.client.auth and protocols; and the
 * listener.name.<listener>. prefix winning over the plain key.
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
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "net/tls.h"
#include "net/tls_config.h"

/* Builds a server context that must fail; checks err holds want. */
static void expect_server_error(const gr_tls_config_t *cfg, const char *want)
{
    char err[512] = "";
    gr_tls_ctx_t *ctx = gr_tls_ctx_new_server(cfg, err, sizeof err);
    assert_null(ctx);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_keystore_errors(void **state)
{
    (void)state;
    gr_tls_config_t cfg = {.keystore_location = "/nonexistent/server.pem"};
    expect_server_error(&cfg, "ssl.keystore.location /nonexistent/server.pem");

    cfg = (gr_tls_config_t){.keystore_type = "JKS", .keystore_location = "/x.jks"};
    expect_server_error(&cfg, "ssl.keystore.type=JKS is not supported; convert to PEM");
    cfg.keystore_type = "PKCS12";
    expect_server_error(&cfg, "openssl pkcs12");

    cfg = (gr_tls_config_t){0};
    expect_server_error(&cfg, "no keystore");

    char path[] = "/tmp/gr_tls_config_test.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not pem\n", 8), 8);
    close(fd);
    cfg = (gr_tls_config_t){.keystore_location = path};
    expect_server_error(&cfg, "no PEM certificate");
    unlink(path);

    cfg = (gr_tls_config_t){.keystore_location = "/x.pem", .client_auth = "sometimes"};
    expect_server_error(&cfg, "ssl.client.auth=sometimes");
}

static void test_client_protocols(void **state)
{
    char err[512] = "";
    (void)state;
    gr_tls_config_t cfg = {.enabled_protocols = "TLSv1.2,SSLv3"};
    assert_null(gr_tls_ctx_new_client(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "unknown protocol 'SSLv3'"));
    cfg = (gr_tls_config_t){.truststore_type = "JKS", .truststore_location = "/t.jks"};
    assert_null(gr_tls_ctx_new_client(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "ssl.truststore.type=JKS is not supported"));
    cfg = (gr_tls_config_t){.enabled_protocols = "TLSv1.3"};
    gr_tls_ctx_t *ctx = gr_tls_ctx_new_client(&cfg, err, sizeof err);
    assert_non_null(ctx);
    gr_tls_ctx_free(ctx);
}

static void test_listener_prefix(void **state)
{
    gr_config_t cfg;
    char err[256];
    (void)state;
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(
        gr_config_override(&cfg, "ssl.keystore.location=/all.pem", NULL, err, sizeof err), 0);
    assert_int_equal(gr_config_override(&cfg,
                                        "listener.name.internal.ssl.keystore.location=/in.pem",
                                        NULL, err, sizeof err),
                     0);
    assert_int_equal(gr_config_override(&cfg, "ssl.keystore.type=PEM", NULL, err, sizeof err), 0);
    gr_tls_config_t tc;
    gr_tls_config_for_listener(&cfg, "INTERNAL", &tc);
    assert_string_equal(tc.keystore_location, "/in.pem");
    assert_string_equal(tc.keystore_type, "PEM");
    assert_null(tc.truststore_type); /* left at Kafka's JKS default: not named */
    assert_string_equal(tc.client_auth, "none");
    assert_true(tc.ktls);
    gr_tls_config_for_listener(&cfg, "EXTERNAL", &tc);
    assert_string_equal(tc.keystore_location, "/all.pem");
    assert_int_equal(gr_config_override(&cfg, "ssl.client.auth=sometimes", NULL, err, sizeof err),
                     -EINVAL);
    gr_config_fini(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keystore_errors),
        cmocka_unit_test(test_client_protocols),
        cmocka_unit_test(test_listener_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
