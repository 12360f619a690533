/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Regular-expression subscriptions of KIP-848 consumer groups
 * (src/group/cgroup_regex.c) through whole heartbeats on a fake env: a
 * hand-advanced clock, a topic table the test edits (with its generation
 * moved on create and delete, as the broker's), and a DESCRIBE filter.
 * Resolution (whole-name matches, names ∪ regex), a bad regex, the join
 * rules for names and regex, topics created and deleted, partitions
 * added, the ACL filter, and the resolutions dropped with their last user.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_group_env.h"
#include "group/cgroup.h"
#include "group/cgroup_int.h"

#define SESSION_MS   45000
#define REBALANCE_MS 30000

static const char *const assignors[] = {"uniform", "range"};

typedef struct fake {
    fake_group_clock_t clock; /* first: the env's opaque is the clock too */
    fake_group_topics_t topics;
    uint64_t generation;
    const char *denied;  /* a topic the member may not DESCRIBE, or NULL */
    char tombstoned[32]; /* the last regex a store carried a tombstone for */
    bool full_requests;  /* every heartbeat sends its rebalance timeout */
    gr_group_env_t env;
    gr_group_t *g;
} fake_t;

static bool fake_topic_find(void *o, gr_str_t name, gr_cgroup_topic_info_t *out)
{
    return fake_group_topic_find(&((fake_t *)o)->topics, name, out);
}

static void fake_topic_foreach(void *o, void (*fn)(void *arg, const char *name), void *arg)
{
    fake_t *f = o;
    for (int i = 0; i < f->topics.count; i++)
        fn(arg, f->topics.topics[i].name);
}

static uint64_t fake_generation(void *o)
{
    return ((fake_t *)o)->generation;
}

static bool fake_allowed(void *ctx, const char *topic)
{
    fake_t *f = ctx;
    return !f->denied || strcmp(f->denied, topic) != 0;
}

static gr_kerr_t fake_store(void *o, gr_group_t *g, int64_t *written_end)
{
    fake_t *f = o;
    *written_end = 0;
    const gr_cgroup_regexes_t *r = &g->consumer->regexes;
    if (r->removed_count > 0)
        snprintf(f->tombstoned, sizeof f->tombstoned, "%s", r->removed[r->removed_count - 1]);
    gr_cgroup_stored(g->consumer);
    return GR_KERR_NONE;
}

static void add_topic(fake_t *f, const char *name, uint8_t id, int32_t partitions)
{
    fake_group_add_topic(&f->topics, name, id, partitions);
    f->generation++;
}

static void delete_topic(fake_t *f, const char *name)
{
    if (!fake_group_remove_topic(&f->topics, name))
        fail_msg("no topic %s", name);
    f->generation++;
}

static void fake_init(fake_t *f)
{
    memset(f, 0, sizeof(*f));
    f->clock.now = 1000000;
    f->env = (gr_group_env_t){.opaque = f,
                              .now_ms = fake_group_now,
                              .timer_arm = fake_group_arm,
                              .timer_cancel = fake_group_cancel,
                              .consumer_limits = {.heartbeat_interval_ms = 5000,
                                                  .session_timeout_ms = SESSION_MS,
                                                  .max_size = 8,
                                                  .assignors = assignors,
                                                  .assignor_count = 2},
                              .topic_find = fake_topic_find,
                              .topic_foreach = fake_topic_foreach,
                              .topics_generation = fake_generation,
                              .store_consumer = fake_store};
    add_topic(f, "orders-eu", 1, 2);
    add_topic(f, "orders-us", 2, 1);
    add_topic(f, "payments", 3, 1);
    add_topic(f, "orders", 4, 1);
    f->g = gr_group_new("g", 1, 0, f->clock.now);
    assert_non_null(f->g);
    assert_int_equal(gr_group_become_consumer(f->g, &f->env), GR_KERR_NONE);
}

static void fake_fini(fake_t *f)
{
    gr_group_free(f->g, &f->env);
    assert_int_equal(f->clock.timer_count, 0);
}

/* --- heartbeats ------------------------------------------------------------------- */

#define NO_NAMES ((const char *const *)NULL) /* names null: unchanged */
static const char *const empty_names[] = {NULL};

typedef struct reply {
    gr_kerr_t error;
    char message[GR_CGROUP_REGEX_MESSAGE_MAX];
    int32_t epoch;
    bool has_assignment;
    gr_assignment_t assignment;
} reply_t;

static gr_str_t opt(const char *s)
{
    return s ? gr_str(s) : (gr_str_t){NULL, GR_NULL_LEN};
}

/*
 * A v1 heartbeat of member id at epoch: names (NULL-terminated; NO_NAMES:
 * null), regex (NULL: null), owning owned (NULL: not sent; a join sends
 * empty).
 */
static reply_t beat(fake_t *f, const char *id, int32_t epoch, const char *const *names,
                    const char *regex, const gr_assignment_t *owned)
{
    gr_str_t topics[8];
    int32_t count = -1;
    if (names)
        for (count = 0; names[count]; count++)
            topics[count] = gr_str(names[count]);
    gr_assignment_t none = GR_ASSIGNMENT_INIT;
    gr_cgroup_heartbeat_args_t a = {
        .version = 1,
        .member_id = gr_str(id),
        .member_epoch = epoch,
        .instance_id = opt(NULL),
        .rack_id = opt(NULL),
        .rebalance_timeout_ms = epoch == 0 || f->full_requests ? REBALANCE_MS : -1,
        .subscribed_topics = topics,
        .subscribed_count = count,
        .subscribed_regex = opt(regex),
        .server_assignor = opt(NULL),
        .owned = epoch == 0 ? &none : owned,
        .client_id = gr_str("client"),
        .client_host = gr_str("/127.0.0.1"),
        .topic_allowed = fake_allowed,
        .topic_allowed_ctx = f,
    };
    reply_t r;
    memset(&r, 0, sizeof r);
    const char *message = NULL;
    gr_cgroup_heartbeat_result_t out; /* message may point into it */
    r.error = gr_cgroup_heartbeat_validate(&f->env, &a, &message);
    if (!r.error) {
        gr_cgroup_heartbeat(f->g, &f->env, &a, &out);
        r.error = out.error;
        message = out.error_message;
        r.epoch = out.member_epoch;
        if (out.assignment) {
            r.has_assignment = true;
            assert_int_equal(gr_assignment_copy(&r.assignment, out.assignment), 0);
        }
    }
    snprintf(r.message, sizeof r.message, "%s", message ? message : "");
    return r;
}

/* A heartbeat owning exactly what the member was last given (its epoch). */
static reply_t ack(fake_t *f, const char *id, int32_t epoch, const gr_assignment_t *owned)
{
    return beat(f, id, epoch, NO_NAMES, NULL, owned);
}

/* Partitions of topic n in a. */
static int32_t partitions_of(const gr_assignment_t *a, uint8_t n)
{
    gr_uuid_t id = fake_group_topic_id(n);
    for (int32_t i = 0; i < a->topic_count; i++)
        if (memcmp(&a->topics[i].topic_id, &id, sizeof id) == 0)
            return a->topics[i].partition_count;
    return 0;
}

static gr_cmember_t *member(fake_t *f, const char *id)
{
    return gr_cgroup_find_member(f->g->consumer, gr_str(id));
}

/* --- tests -------------------------------------------------------------------------- */

static void test_regex_matches_whole_names(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, empty_names, "orders-.*", NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_true(r.has_assignment);
    /* orders-eu and orders-us; not "orders" (the whole name must match), not payments. */
    assert_int_equal(gr_assignment_size(&r.assignment), 3);
    assert_int_equal(partitions_of(&r.assignment, 1), 2);
    assert_int_equal(partitions_of(&r.assignment, 2), 1);
    assert_int_equal(partitions_of(&r.assignment, 4), 0);
    const gr_cgroup_regex_t *e = gr_cgroup_regex_find(f.g->consumer, "orders-.*");
    assert_non_null(e);
    assert_int_equal(e->topic_count, 2);
    assert_string_equal(e->topics[0], "orders-eu");
    assert_true(gr_cgroup_subscribed_to(f.g->consumer, gr_str("orders-us")));
    assert_false(gr_cgroup_subscribed_to(f.g->consumer, gr_str("payments")));
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_full_request_with_regex_only(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, NO_NAMES, "orders-us", NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    /* Timeout, regex (names null) and owned partitions: a full request, answered
     * with the assignment even though nothing changed (Kafka's isFullRequest). */
    f.full_requests = true;
    reply_t full = beat(&f, "a", r.epoch, NO_NAMES, "orders-us", &r.assignment);
    assert_int_equal(full.error, GR_KERR_NONE);
    assert_true(full.has_assignment);
    assert_int_equal(gr_assignment_size(&full.assignment), 1);
    gr_assignment_free(&r.assignment);
    gr_assignment_free(&full.assignment);
    fake_fini(&f);
}

static void test_names_and_regex_together(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    /* Kafka 4.x takes both: the member subscribes to the names and to the matches. */
    const char *const names[] = {"payments", "orders-us", NULL};
    reply_t r = beat(&f, "a", 0, names, "orders-(eu|us)", NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&r.assignment), 4);
    assert_int_equal(partitions_of(&r.assignment, 3), 1);
    assert_int_equal(partitions_of(&r.assignment, 2), 1); /* named and matched: once */
    assert_int_equal(f.g->consumer->topic_count, 3);
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_join_rules(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, NO_NAMES, NULL, NULL);
    assert_int_equal(r.error, GR_KERR_INVALID_REQUEST);
    assert_string_equal(
        r.message,
        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
    /* An empty regex, or an empty list of names: a member subscribed to nothing. */
    r = beat(&f, "a", 0, NO_NAMES, "", NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&r.assignment), 0);
    assert_int_equal(f.g->consumer->regexes.count, 0);
    gr_assignment_free(&r.assignment);
    r = beat(&f, "b", 0, empty_names, NULL, NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->member_count, 2);
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_bad_regex(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, empty_names, "orders-(", NULL);
    assert_int_equal(r.error, GR_KERR_INVALID_REGULAR_EXPRESSION);
    assert_non_null(strstr(r.message, "SubscribedTopicRegex `orders-(` is not a valid regular "
                                      "expression: "));
    assert_int_equal(f.g->consumer->member_count, 0); /* the join left nothing */
    /* PCRE2 syntax RE2 refuses (lookahead): refused as Kafka's RE2/J does. */
    r = beat(&f, "a", 0, empty_names, "(?=orders).*", NULL);
    assert_int_equal(r.error, GR_KERR_INVALID_REGULAR_EXPRESSION);

    /* A member that changes to a bad regex keeps its subscription. */
    r = beat(&f, "a", 0, empty_names, "orders-eu", NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    int32_t epoch = r.epoch, group_epoch = f.g->consumer->group_epoch;
    reply_t bad = beat(&f, "a", epoch, NO_NAMES, "[z-a]", &r.assignment);
    assert_int_equal(bad.error, GR_KERR_INVALID_REGULAR_EXPRESSION);
    assert_string_equal(member(&f, "a")->subscribed_regex, "orders-eu");
    assert_int_equal(f.g->consumer->group_epoch, group_epoch);
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_topics_created_and_deleted(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, empty_names, "orders-.*", NULL);
    assert_int_equal(gr_assignment_size(&r.assignment), 3);
    int32_t group_epoch = f.g->consumer->group_epoch;

    /* A heartbeat with nothing new changes nothing. */
    reply_t same = ack(&f, "a", r.epoch, &r.assignment);
    assert_int_equal(same.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, group_epoch);

    /* A matching topic created: the next heartbeat resolves again and assigns it. */
    add_topic(&f, "orders-apac", 5, 3);
    add_topic(&f, "audit", 6, 1);
    reply_t grown = ack(&f, "a", r.epoch, &r.assignment);
    assert_int_equal(grown.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, group_epoch + 1);
    assert_true(grown.has_assignment);
    assert_int_equal(partitions_of(&grown.assignment, 5), 3);
    assert_int_equal(partitions_of(&grown.assignment, 6), 0);
    assert_int_equal(gr_assignment_size(&grown.assignment), 6);

    /* A matched topic deleted: gone from the resolution and the assignment. */
    delete_topic(&f, "orders-eu");
    reply_t shrunk = ack(&f, "a", grown.epoch, &grown.assignment);
    assert_int_equal(shrunk.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, group_epoch + 2);
    assert_int_equal(gr_cgroup_regex_find(f.g->consumer, "orders-.*")->topic_count, 2);
    assert_int_equal(partitions_of(&member(&f, "a")->target, 1), 0);
    assert_int_equal(gr_assignment_size(&member(&f, "a")->target), 4);
    gr_assignment_free(&r.assignment);
    gr_assignment_free(&same.assignment);
    gr_assignment_free(&grown.assignment);
    gr_assignment_free(&shrunk.assignment);
    fake_fini(&f);
}

static void test_partitions_added(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "a", 0, empty_names, "orders-us", NULL);
    assert_int_equal(gr_assignment_size(&r.assignment), 1);
    f.topics.topics[1].partitions = 4; /* CreatePartitions: no topic created, no generation move */
    reply_t grown = ack(&f, "a", r.epoch, &r.assignment);
    assert_int_equal(grown.error, GR_KERR_NONE);
    assert_int_equal(partitions_of(&grown.assignment, 2), 4);
    gr_assignment_free(&r.assignment);
    gr_assignment_free(&grown.assignment);
    fake_fini(&f);
}

static void test_describe_filter_and_refresh_interval(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.denied = "orders-us";
    reply_t r = beat(&f, "a", 0, empty_names, "orders-.*", NULL);
    assert_int_equal(gr_assignment_size(&r.assignment), 2);
    assert_int_equal(partitions_of(&r.assignment, 2), 0);
    /* Allowed now: seen once the refresh interval (Kafka's 10 minutes) has passed. */
    f.denied = NULL;
    reply_t same = ack(&f, "a", r.epoch, &r.assignment);
    assert_int_equal(gr_cgroup_regex_find(f.g->consumer, "orders-.*")->topic_count, 1);
    f.clock.now += GR_CGROUP_REGEX_REFRESH_INTERVAL_MS;
    reply_t later = ack(&f, "a", r.epoch, &r.assignment);
    assert_int_equal(later.error, GR_KERR_NONE);
    assert_int_equal(partitions_of(&later.assignment, 2), 1);
    gr_assignment_free(&r.assignment);
    gr_assignment_free(&same.assignment);
    gr_assignment_free(&later.assignment);
    fake_fini(&f);
}

static void test_resolution_dropped_with_last_user(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t a = beat(&f, "a", 0, empty_names, "orders-.*", NULL);
    reply_t b = beat(&f, "b", 0, empty_names, "orders-.*", NULL);
    assert_int_equal(f.g->consumer->regexes.count, 1); /* one resolution for both */

    /* a leaves: b still uses it. */
    reply_t left = beat(&f, "a", GR_CGROUP_LEAVE_EPOCH, NO_NAMES, NULL, NULL);
    assert_int_equal(left.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->regexes.count, 1);
    assert_string_equal(f.tombstoned, "");

    /* b moves to another regex: the first one goes, its record to be tombstoned. */
    reply_t moved = beat(&f, "b", b.epoch, NO_NAMES, "payments", &b.assignment);
    assert_int_equal(moved.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->regexes.count, 1);
    assert_string_equal(f.tombstoned, "orders-.*");
    assert_non_null(gr_cgroup_regex_find(f.g->consumer, "payments"));
    assert_int_equal(gr_assignment_size(&member(&f, "b")->target), 1);
    gr_assignment_free(&a.assignment);
    gr_assignment_free(&b.assignment);
    gr_assignment_free(&moved.assignment);
    fake_fini(&f);
}

static void test_replayed_resolution_kept(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    /* As replay leaves it: a member with its regex and the resolution's record. */
    gr_cmember_t *m = gr_cmember_new(f.g->consumer, gr_str("a"));
    assert_non_null(m);
    gr_cgroup_link(f.g->consumer, m);
    bool bump = false;
    assert_int_equal(gr_cmember_set_regex(m, gr_str("orders-.*"), &bump), 0);
    const gr_str_t topics[] = {gr_str("orders-us"), gr_str("orders-eu")};
    assert_int_equal(gr_cgroup_regex_replay(f.g->consumer, gr_str("orders-.*"), topics, 2, 7, 1234),
                     0);
    const gr_cgroup_regex_t *e = gr_cgroup_regex_find(f.g->consumer, "orders-.*");
    assert_non_null(e);
    assert_string_equal(e->topics[0], "orders-eu"); /* kept sorted */
    /* Resolved again at the first refresh of this run: the same topics, no change. */
    assert_false(gr_cgroup_regex_refresh(f.g->consumer, &f.env, NULL, NULL));
    assert_true(f.g->consumer->regexes.generation_known);
    /* A tombstone removes it. */
    assert_int_equal(gr_cgroup_regex_replay(f.g->consumer, gr_str("orders-.*"), NULL, -1, 0, 0), 0);
    assert_null(gr_cgroup_regex_find(f.g->consumer, "orders-.*"));
    fake_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regex_matches_whole_names),
        cmocka_unit_test(test_full_request_with_regex_only),
        cmocka_unit_test(test_names_and_regex_together),
        cmocka_unit_test(test_join_rules),
        cmocka_unit_test(test_bad_regex),
        cmocka_unit_test(test_topics_created_and_deleted),
        cmocka_unit_test(test_partitions_added),
        cmocka_unit_test(test_describe_filter_and_refresh_interval),
        cmocka_unit_test(test_resolution_dropped_with_last_user),
        cmocka_unit_test(test_replayed_resolution_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
