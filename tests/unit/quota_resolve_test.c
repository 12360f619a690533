/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota resolution and sharing: Kafka's eight levels of precedence one by
 * one, who shares a rate at each level, throttling on a fake clock, and the
 * entity names and paths of the metadata store (sanitizing, <default>).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "quota/entity.h"
#include "quota/quotas.h"

#define SAMPLES   11
#define WINDOW_MS 1000
#define NO_PART   ((const char *)1) /* marks a part absent in entity() */

static gr_quota_entity_t entity(const char *user, const char *client)
{
    gr_quota_entity_t e;
    memset(&e, 0, sizeof e);
    if (user != NO_PART)
        assert_int_equal(gr_quota_part_set(&e.user, user), 0);
    if (client != NO_PART)
        assert_int_equal(gr_quota_part_set(&e.client, client), 0);
    return e;
}

static void set_rate(gr_quotas_t *q, const char *user, const char *client, double v)
{
    gr_quota_entity_t e = entity(user, client);
    gr_quota_values_t values = {0};
    values.has[GR_QUOTA_PRODUCE] = v > 0;
    values.value[GR_QUOTA_PRODUCE] = v;
    assert_int_equal(gr_quotas_set(q, &e, &values), 0);
}

static double bound_for(gr_quotas_t *q, const char *user, const char *client)
{
    double bound = -1;
    if (!gr_quotas_resolve(q, GR_QUOTA_PRODUCE, user, client, &bound))
        return -1;
    return bound;
}

/* Adds the levels from least to most specific; each new one wins. */
static void test_precedence(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    assert_false(gr_quotas_enabled(q, GR_QUOTA_PRODUCE));
    assert_true(bound_for(q, "u", "c") < 0);
    const struct {
        const char *user, *client;
    } levels[] = {
        {NO_PART, NULL}, {NO_PART, "c"}, {NULL, NO_PART}, {NULL, NULL},
        {NULL, "c"},     {"u", NO_PART}, {"u", NULL},     {"u", "c"},
    };
    for (int i = 0; i < 8; i++) {
        set_rate(q, levels[i].user, levels[i].client, 100 + i);
        assert_true(gr_quotas_enabled(q, GR_QUOTA_PRODUCE));
        assert_true(bound_for(q, "u", "c") == 100 + i);
    }
    /* Others fall to the defaults. */
    assert_true(bound_for(q, "v", "d") == 100 + 3); /* <default> user, <default> client */
    assert_true(bound_for(q, "v", "c") == 100 + 4); /* <default> user, client c */
    assert_true(bound_for(q, "u", "d") == 100 + 6); /* user u, <default> client */
    set_rate(q, "u", "c", 0);                       /* removed */
    assert_true(bound_for(q, "u", "c") == 100 + 6);
    assert_false(gr_quotas_enabled(q, GR_QUOTA_FETCH));
    gr_quotas_free(q);
}

/* Over 10 windows, 2x the bound gives about 10 s of throttle. */
static void test_record_throttles(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    set_rate(q, NO_PART, "c", 1000);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "u", "c", 10000, 0), 0);
    int64_t ms = gr_quotas_record(q, GR_QUOTA_PRODUCE, "u", "c", 10000, 0);
    assert_int_equal(ms, (SAMPLES - 1) * WINDOW_MS);
    /* Another client id has no quota: never throttled. */
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "u", "other", 1e9, 0), 0);
    /* No fetch quota: nothing recorded. */
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_FETCH, "u", "c", 1e9, 0), 0);
    gr_quotas_free(q);
}

/* Client-level quota: every user of the client id shares one rate. */
static void test_sharing_by_client(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    set_rate(q, NO_PART, "c", 1000);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c", 10000, 0), 0);
    assert_true(gr_quotas_record(q, GR_QUOTA_PRODUCE, "bob", "c", 10000, 0) > 0);
    gr_quotas_free(q);
}

/* (user, <default> client) level: each client of the user has its own rate. */
static void test_sharing_by_pair(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    set_rate(q, "alice", NULL, 1000);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c1", 10000, 0), 0);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c2", 10000, 0), 0);
    assert_true(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c2", 10000, 0) > 0);
    gr_quotas_free(q);
}

/* User-level quota: every client of the user shares one rate. */
static void test_sharing_by_user(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    set_rate(q, "alice", NO_PART, 1000);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c1", 10000, 0), 0);
    assert_true(gr_quotas_record(q, GR_QUOTA_PRODUCE, "alice", "c2", 10000, 0) > 0);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_PRODUCE, "bob", "c2", 1e9, 0), 0);
    gr_quotas_free(q);
}

static void test_request_capped(void **state)
{
    (void)state;
    gr_quotas_t *q = gr_quotas_new(SAMPLES, WINDOW_MS);
    gr_quota_entity_t e = entity(NO_PART, NULL);
    gr_quota_values_t v = {0};
    v.has[GR_QUOTA_REQUEST] = true;
    v.value[GR_QUOTA_REQUEST] = 1; /* 1% of a thread */
    assert_int_equal(gr_quotas_set(q, &e, &v), 0);
    assert_int_equal(gr_quotas_record(q, GR_QUOTA_REQUEST, "u", "c", 1000, 0), WINDOW_MS);
    gr_quotas_free(q);
}

static void test_paths(void **state)
{
    (void)state;
    char path[GR_QUOTA_PATH_MAX];
    gr_quota_entity_t e = entity("User one", "c/*");
    assert_int_equal(gr_quota_entity_path(&e, path, sizeof path), 0);
    assert_string_equal(path, "users/User%20one/clients/c%2F%2A");
    gr_quota_entity_t back;
    assert_int_equal(gr_quota_entity_parse(path, &back), 0);
    assert_true(gr_quota_entity_eq(&e, &back));
    e = entity(NULL, NO_PART);
    assert_int_equal(gr_quota_entity_path(&e, path, sizeof path), 0);
    assert_string_equal(path, "users/<default>");
    assert_int_equal(gr_quota_entity_parse("clients/<default>", &back), 0);
    e = entity(NO_PART, NULL);
    assert_true(gr_quota_entity_eq(&e, &back));
    /* A client named "<default>" is not the default. */
    e = entity(NO_PART, "<default>");
    assert_int_equal(gr_quota_entity_path(&e, path, sizeof path), 0);
    assert_string_equal(path, "clients/%3Cdefault%3E");
    assert_int_equal(gr_quota_entity_parse("topics/t", &back), -EINVAL);
    assert_int_equal(gr_quota_entity_parse("users/u/topics/t", &back), -EINVAL);
    assert_int_equal(gr_quota_entity_parse("clients/bad%zz", &back), -EINVAL);
    assert_int_equal(gr_quota_entity_parse("clients/", &back), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_record_throttles),
        cmocka_unit_test(test_sharing_by_client),
        cmocka_unit_test(test_sharing_by_pair),
        cmocka_unit_test(test_sharing_by_user),
        cmocka_unit_test(test_request_capped),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
