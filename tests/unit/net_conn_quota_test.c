/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connection quotas' pieces: per-address counts (IPv4 and its IPv6-mapped
 * form are one address, a count at zero is forgotten) and the creation-rate
 * bucket (a second's burst, then delays that add up to the rate; never a
 * refusal). Times are given, not read from a clock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/conn_quota.h"

static void addr_v4(const char *text, uint8_t out[GR_CONN_QUOTA_ADDR_LEN])
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    assert_int_equal(inet_pton(AF_INET, text, &sin.sin_addr), 1);
    assert_int_equal(gr_conn_quota_addr((struct sockaddr *)&sin, out), 0);
}

static void test_ip_counts(void **state)
{
    (void)state;
    gr_ip_counts_t t = {0};
    uint8_t a[GR_CONN_QUOTA_ADDR_LEN], b[GR_CONN_QUOTA_ADDR_LEN], mapped[GR_CONN_QUOTA_ADDR_LEN];
    addr_v4("127.0.0.2", a);
    addr_v4("127.0.0.3", b);
    struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
    assert_int_equal(inet_pton(AF_INET6, "::ffff:127.0.0.2", &sin6.sin6_addr), 1);
    assert_int_equal(gr_conn_quota_addr((struct sockaddr *)&sin6, mapped), 0);
    assert_memory_equal(a, mapped, GR_CONN_QUOTA_ADDR_LEN);

    assert_int_equal(gr_ip_counts_get(&t, a), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(gr_ip_counts_inc(&t, a), 0);
    assert_int_equal(gr_ip_counts_inc(&t, b), 0);
    assert_int_equal(gr_ip_counts_get(&t, mapped), 3);
    assert_int_equal(gr_ip_counts_get(&t, b), 1);
    gr_ip_counts_dec(&t, b);
    assert_int_equal(gr_ip_counts_get(&t, b), 0);
    gr_ip_counts_dec(&t, b); /* not there: nothing */
    gr_ip_counts_dec(&t, a);
    assert_int_equal(gr_ip_counts_get(&t, a), 2);
    gr_ip_counts_fini(&t);
    assert_int_equal(gr_ip_counts_get(&t, a), 0);

    struct sockaddr unix_like = {.sa_family = AF_UNIX};
    assert_int_equal(gr_conn_quota_addr(&unix_like, a), -EAFNOSUPPORT);
}

static void test_rate_bucket(void **state)
{
    (void)state;
    gr_rate_bucket_t r;
    gr_rate_bucket_init(&r, 0, 100.);
    for (int i = 0; i < 1000; i++)
        assert_true(gr_rate_bucket_take(&r, 100.) == 0); /* no limit */

    gr_rate_bucket_init(&r, 10, 100.);
    for (int i = 0; i < 10; i++)
        assert_true(gr_rate_bucket_take(&r, 100.) == 0); /* a second's burst */
    double d = gr_rate_bucket_take(&r, 100.);
    assert_true(d > 0.09 && d < 0.11); /* one owed: a tenth of a second */
    d = gr_rate_bucket_take(&r, 100.);
    assert_true(d > 0.19 && d < 0.21);
    /* After the owed time the debt is paid and one more is due again. */
    d = gr_rate_bucket_take(&r, 100.2);
    assert_true(d > 0.09 && d < 0.11);
    /* A long pause refills at most a second's worth. */
    for (int i = 0; i < 10; i++)
        assert_true(gr_rate_bucket_take(&r, 200.) == 0);
    assert_true(gr_rate_bucket_take(&r, 200.) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ip_counts),
        cmocka_unit_test(test_rate_bucket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
