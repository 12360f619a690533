/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group configs (metadata/group_config.h): the ISO-8601 duration parser of
 * share.auto.offset.reset's by_duration, the validation of an override set
 * (every bad value refused with -EINVAL and a message, never accepted or
 * crashed on), and the cache of overrides.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/context.h"
#include "metadata/config_entity.h"
#include "metadata/group_config.h"

static void expect_duration(const char *text, int64_t want_ms)
{
    int64_t ms = -1;
    assert_int_equal(gr_group_config_parse_duration(text, &ms), 0);
    assert_int_equal(ms, want_ms);
}

static void expect_bad_duration(const char *text)
{
    int64_t ms = 0;
    assert_int_equal(gr_group_config_parse_duration(text, &ms), -EINVAL);
}

static void test_durations(void **state)
{
    (void)state;
    expect_duration("PT30M", 30 * 60 * 1000LL);
    expect_duration("P1DT2H", (24 + 2) * 3600 * 1000LL);
    expect_duration("pt1.5s", 1500);
    expect_duration("PT0,25S", 250);
    expect_duration("P2D", 2 * 24 * 3600 * 1000LL);
    expect_duration("PT1H2M3.004S", 3723004);
    expect_duration("PT0S", 0);
    expect_bad_duration("");
    expect_bad_duration("P");
    expect_bad_duration("PT");
    expect_bad_duration("P1DT");
    expect_bad_duration("-PT1S");
    expect_bad_duration("PT-1S");
    expect_bad_duration("PT5M3H");
    expect_bad_duration("PT1H1H");
    expect_bad_duration("1H");
    expect_bad_duration("PT1SX");
    /* Out of range, in whole units and in a fraction pushed over the limit. */
    expect_bad_duration("P999999999999999999D");
    expect_bad_duration("PT9223372036854776S");
    expect_bad_duration("PT9223372036854775.999S");
    expect_duration("PT9223372036854775.807S", INT64_MAX);
}

static int expect_invalid(gr_broker_t *b, gr_group_config_key_t k, const char *value)
{
    gr_group_overrides_t o = {{NULL}};
    o.values[k] = (char *)value;
    char err[256] = "";
    int rc = gr_group_config_validate(b, &o, err, sizeof err);
    if (rc == -EINVAL)
        assert_non_null(strstr(err, gr_group_config_def_at(k)->name));
    return rc;
}

static void test_validate(void **state)
{
    (void)state;
    static gr_broker_t b;
    assert_int_equal(gr_config_init(&b.config), 0);
    const struct {
        gr_group_config_key_t key;
        const char *value;
        int rc;
    } cases[] = {
        {GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, "earliest", 0},
        {GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, "by_duration:PT1H", 0},
        {GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, "by_duration:", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, "by_duration:PT9223372036854775.999S", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, "", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL, "read_uncommitted", 0},
        {GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL, "READ_COMMITTED", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS, "20000", 0},
        {GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS, "999", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS, "99999999999", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS, "1e4", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_SESSION_TIMEOUT_MS, "61000", -EINVAL},
        {GR_GROUP_CONFIG_SHARE_HEARTBEAT_INTERVAL_MS, "0", -EINVAL},
        {GR_GROUP_CONFIG_CONSUMER_SESSION_TIMEOUT_MS, " 50000 ", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(expect_invalid(&b, cases[i].key, cases[i].value), cases[i].rc);
    gr_config_fini(&b.config);
}

static void test_cache(void **state)
{
    (void)state;
    static gr_broker_t b;
    assert_int_equal(gr_config_init(&b.config), 0);
    b.group_configs = gr_group_configs_new();
    assert_non_null(b.group_configs);
    gr_group_overrides_t o = {{NULL}};
    o.values[GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET] = "by_duration:PT1M";
    assert_int_equal(gr_group_configs_set(b.group_configs, "g1", 2, &o), 0);
    gr_group_config_values_t v;
    gr_group_config_get(&b, "g1", 2, &v);
    assert_int_equal(v.share_auto_offset_reset, GR_SHARE_OFFSET_RESET_BY_DURATION);
    assert_int_equal(v.share_auto_offset_reset_duration_ms, 60000);
    assert_int_equal(v.share_isolation_level, GR_GROUP_ISOLATION_READ_COMMITTED);
    gr_group_config_get(&b, "g2", 2, &v);
    assert_int_equal(v.share_auto_offset_reset, GR_SHARE_OFFSET_RESET_LATEST);
    assert_int_equal(v.share_session_timeout_ms, 45000);
    gr_group_overrides_t none = {{NULL}};
    assert_int_equal(gr_group_configs_set(b.group_configs, "g1", 2, &none), 0);
    assert_null(gr_group_configs_find(b.group_configs, "g1", 2));
    gr_group_configs_free(b.group_configs);
    gr_config_fini(&b.config);
}

/* A group's node name: Kafka's Sanitizer, and back (a notification carries it). */
static void test_names(void **state)
{
    (void)state;
    const char group[] = "g/1 x*\0y";
    char node[64], back[64];
    size_t len = 0;
    assert_int_equal(gr_config_entity_sanitize(group, sizeof group - 1, node, sizeof node), 0);
    assert_string_equal(node, "g%2F1%20x%2A%00y");
    assert_int_equal(gr_config_entity_desanitize(node, strlen(node), back, sizeof back, &len), 0);
    assert_int_equal(len, sizeof group - 1);
    assert_memory_equal(back, group, len);
    assert_int_equal(gr_config_entity_desanitize("a+b%41", 6, back, sizeof back, NULL), 0);
    assert_string_equal(back, "a bA");
    assert_int_equal(gr_config_entity_desanitize("a%4", 3, back, sizeof back, NULL), -EINVAL);
    assert_int_equal(gr_config_entity_sanitize("abc", 3, node, 3), -ENAMETOOLONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
