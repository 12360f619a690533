/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-848 consumer groups (src/group/cgroup*.c) driven through a fake env:
 * a hand-advanced clock, timers fired by hand, and a topic table the test
 * edits. First the reconciliation rules as a pure step function, then
 * whole heartbeats: joining, moving partitions between members one
 * revocation at a time, the error paths, static members and timeouts, and
 * the member checks of OffsetCommit/OffsetFetch.
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
#define HEARTBEAT_MS 5000
#define REBALANCE_MS 30000

static const char *const assignors[] = {"uniform", "range"};

typedef struct fake {
    fake_group_clock_t clock; /* first: the env's opaque is the clock too */
    fake_group_topics_t topics;
    gr_group_env_t env;
    gr_group_t *g;
    int stores;         /* store_consumer calls */
    int removed_stored; /* departed members they carried */
    gr_kerr_t store_error;
} fake_t;

static bool fake_topic_find(void *o, gr_str_t name, gr_cgroup_topic_info_t *out)
{
    return fake_group_topic_find(&((fake_t *)o)->topics, name, out);
}

static gr_kerr_t fake_store(void *o, gr_group_t *g, int64_t *written_end)
{
    fake_t *f = o;
    f->stores++;
    *written_end = 100 + f->stores;
    if (f->store_error)
        return f->store_error;
    f->removed_stored += g->consumer->removed_count;
    gr_cgroup_stored(g->consumer);
    return GR_KERR_NONE;
}

static void add_topic(fake_t *f, const char *name, uint8_t id, int32_t partitions)
{
    fake_group_add_topic(&f->topics, name, id, partitions);
}

static void fake_init(fake_t *f)
{
    memset(f, 0, sizeof(*f));
    f->clock.now = 1000000;
    f->env = (gr_group_env_t){.opaque = f,
                              .now_ms = fake_group_now,
                              .timer_arm = fake_group_arm,
                              .timer_cancel = fake_group_cancel,
                              .consumer_limits = {.heartbeat_interval_ms = HEARTBEAT_MS,
                                                  .session_timeout_ms = SESSION_MS,
                                                  .max_size = 3,
                                                  .assignors = assignors,
                                                  .assignor_count = 2},
                              .topic_find = fake_topic_find,
                              .store_consumer = fake_store};
    add_topic(f, "t", 1, 4);
    f->g = gr_group_new("g", 1, 0, f->clock.now);
    assert_non_null(f->g);
    assert_int_equal(gr_group_become_consumer(f->g, &f->env), GR_KERR_NONE);
}

static void fake_fini(fake_t *f)
{
    gr_group_free(f->g, &f->env);
    assert_int_equal(f->clock.timer_count, 0); /* every timer cancelled */
}

static void fire(fake_t *f, gr_group_timer_kind_t kind, const char *member_id)
{
    fake_group_fire(&f->clock, &f->env, kind, member_id);
}

/* --- a heartbeat as a client would send it ---------------------------------------- */

typedef struct hb {
    int16_t version;
    const char *member_id;
    int32_t epoch;
    const char *instance_id;
    const char *rack;
    const char *topic; /* subscribed topic, NULL: unchanged */
    const char *assignor;
    bool owned_sent;
    gr_assignment_t owned;
} hb_t;

typedef struct reply {
    gr_kerr_t error;
    const char *message;
    char member_id[64];
    int32_t epoch;
    bool has_assignment;
    gr_assignment_t assignment;
} reply_t;

static gr_str_t opt(const char *s)
{
    return s ? gr_str(s) : (gr_str_t){NULL, GR_NULL_LEN};
}

static reply_t beat(fake_t *f, hb_t *h)
{
    gr_str_t topic = opt(h->topic);
    gr_cgroup_heartbeat_args_t a = {
        .version = h->version,
        .member_id = gr_str(h->member_id ? h->member_id : ""),
        .member_epoch = h->epoch,
        .instance_id = opt(h->instance_id),
        .rack_id = opt(h->rack),
        .rebalance_timeout_ms = h->epoch == 0 ? REBALANCE_MS : -1,
        .subscribed_topics = &topic,
        .subscribed_count = h->topic ? 1 : -1,
        .subscribed_regex = opt(NULL),
        .server_assignor = opt(h->assignor),
        .owned = h->owned_sent || h->epoch == 0 ? &h->owned : NULL,
        .client_id = gr_str("client"),
        .client_host = gr_str("/127.0.0.1"),
    };
    reply_t r;
    memset(&r, 0, sizeof r);
    r.error = gr_cgroup_heartbeat_validate(&f->env, &a, &r.message);
    if (r.error)
        return r;
    gr_cgroup_heartbeat_result_t out;
    gr_cgroup_heartbeat(f->g, &f->env, &a, &out);
    r.error = out.error;
    r.message = out.error_message;
    r.epoch = out.member_epoch;
    snprintf(r.member_id, sizeof r.member_id, "%s", out.member_id ? out.member_id : "");
    if (out.assignment) {
        r.has_assignment = true;
        assert_int_equal(gr_assignment_copy(&r.assignment, out.assignment), 0);
    }
    return r;
}

/* A member that joins (v1: its own id) subscribed to "t"; returns its first reply. */
static reply_t join(fake_t *f, const char *id, const char *instance)
{
    hb_t h = {.version = 1, .member_id = id, .epoch = 0, .instance_id = instance, .topic = "t"};
    return beat(f, &h);
}

/* A heartbeat at epoch saying it owns what it was last told. */
static reply_t ack(fake_t *f, const char *id, int32_t epoch, const gr_assignment_t *owned)
{
    hb_t h = {.version = 1, .member_id = id, .epoch = epoch, .owned_sent = true};
    assert_int_equal(gr_assignment_copy(&h.owned, owned), 0);
    reply_t r = beat(f, &h);
    gr_assignment_free(&h.owned);
    return r;
}

/* join() when only the error matters. */
static gr_kerr_t join_only(fake_t *f, const char *id, const char *instance)
{
    reply_t r = join(f, id, instance);
    gr_assignment_free(&r.assignment);
    return r.error;
}

static gr_cmember_t *member(fake_t *f, const char *id)
{
    gr_cmember_t *m = gr_cgroup_find_member(f->g->consumer, gr_str(id));
    assert_non_null(m);
    return m;
}

/* --- reconciliation rules ---------------------------------------------------------- */

static void set_of(gr_assignment_t *a, uint8_t topic, const int32_t *parts, int n)
{
    gr_assignment_clear(a);
    for (int i = 0; i < n; i++)
        assert_int_equal(gr_assignment_add(a, fake_group_topic_id(topic), parts[i]), 0);
}

static void test_reconcile_revokes_before_assigning(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    assert_int_equal(join_only(&f, "a", NULL), GR_KERR_NONE);
    gr_cmember_t *m = member(&f, "a");
    assert_int_equal(m->member_epoch, 1);
    assert_int_equal(gr_assignment_size(&m->assigned), 4);

    /* Target moves to {1,2}: 0 and 3 are revoked first, nothing new is added. */
    gr_assignment_t target = GR_ASSIGNMENT_INIT, owned = GR_ASSIGNMENT_INIT;
    set_of(&target, 1, (int32_t[]){1, 2}, 2);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 2, &target, NULL), GR_KERR_NONE);
    assert_int_equal(m->state, GR_CMEMBER_UNREVOKED_PARTITIONS);
    assert_int_equal(m->member_epoch, 1);
    assert_int_equal(gr_assignment_size(&m->assigned), 2);
    assert_true(gr_assignment_contains(&m->pending_revocation, fake_group_topic_id(1), 0));
    assert_true(gr_assignment_contains(&m->pending_revocation, fake_group_topic_id(1), 3));
    /* Still owning 0: no progress. */
    set_of(&owned, 1, (int32_t[]){0, 1, 2}, 3);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 2, &target, &owned), GR_KERR_NONE);
    assert_int_equal(m->state, GR_CMEMBER_UNREVOKED_PARTITIONS);
    /* Revoked: Stable at the target epoch. */
    set_of(&owned, 1, (int32_t[]){1, 2}, 2);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 2, &target, &owned), GR_KERR_NONE);
    assert_int_equal(m->state, GR_CMEMBER_STABLE);
    assert_int_equal(m->member_epoch, 2);
    assert_int_equal(m->previous_epoch, 1);
    assert_true(gr_assignment_equal(&m->assigned, &target));
    assert_true(gr_assignment_is_empty(&m->pending_revocation));
    gr_assignment_free(&target);
    gr_assignment_free(&owned);
    fake_fini(&f);
}

static void test_reconcile_waits_for_release(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    assert_int_equal(join_only(&f, "a", NULL), GR_KERR_NONE); /* owns 0-3 at epoch 1 */
    reply_t rb = join(&f, "b", NULL);
    assert_int_equal(rb.error, GR_KERR_NONE);
    gr_cmember_t *b = member(&f, "b");
    /* b's target is held by a: b waits with nothing, UnreleasedPartitions. */
    assert_int_equal(b->state, GR_CMEMBER_UNRELEASED_PARTITIONS);
    assert_true(gr_assignment_is_empty(&b->assigned));
    assert_int_equal(b->member_epoch, 2);
    assert_false(gr_assignment_is_empty(&b->target));
    gr_assignment_free(&rb.assignment);
    fake_fini(&f);
}

static void test_reconcile_unknown_member_must_rejoin(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    assert_int_equal(join_only(&f, "a", NULL), GR_KERR_NONE);
    gr_cmember_t *m = member(&f, "a");
    m->state = GR_CMEMBER_UNKNOWN;
    gr_assignment_t owned = GR_ASSIGNMENT_INIT;
    set_of(&owned, 1, (int32_t[]){0}, 1);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 1, &m->target, &owned),
                     GR_KERR_FENCED_MEMBER_EPOCH);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 1, &m->target, NULL),
                     GR_KERR_FENCED_MEMBER_EPOCH);
    gr_assignment_clear(&owned);
    assert_int_equal(gr_cgroup_reconcile(f.g->consumer, m, 1, &m->target, &owned), GR_KERR_NONE);
    assert_int_equal(m->state, GR_CMEMBER_STABLE);
    gr_assignment_free(&owned);
    fake_fini(&f);
}

/* --- heartbeats ---------------------------------------------------------------------- */

static void test_join_v0_gets_member_id_and_everything(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    hb_t h = {.version = 0, .member_id = "", .epoch = 0, .topic = "t"};
    reply_t r = beat(&f, &h);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(strlen(r.member_id), 22); /* Kafka's Uuid text */
    assert_int_equal(r.epoch, 1);
    assert_true(r.has_assignment);
    assert_int_equal(gr_assignment_size(&r.assignment), 4);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_STABLE);
    assert_int_equal(f.g->state, GR_GROUP_STABLE);
    /* An unchanged heartbeat carries no assignment. */
    reply_t again = ack(&f, r.member_id, 1, &r.assignment);
    assert_int_equal(again.error, GR_KERR_NONE);
    assert_false(again.has_assignment);
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_partition_moves_after_revocation(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    reply_t rb = join(&f, "b", NULL);
    assert_int_equal(f.g->consumer->group_epoch, 2);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_RECONCILING);
    /* a learns it must give some up: its assignment shrinks, its epoch stays. */
    reply_t a1 = ack(&f, "a", 1, &ra.assignment);
    assert_int_equal(a1.error, GR_KERR_NONE);
    assert_int_equal(a1.epoch, 1);
    assert_true(a1.has_assignment);
    assert_int_equal(gr_assignment_size(&a1.assignment), 2);
    /* b still waits: a has not revoked. */
    reply_t b1 = ack(&f, "b", 2, &rb.assignment);
    assert_true(!b1.has_assignment || gr_assignment_is_empty(&b1.assignment));
    /* a revokes; it moves to epoch 2; then b gets its two. */
    reply_t a2 = ack(&f, "a", 1, &a1.assignment);
    assert_int_equal(a2.error, GR_KERR_NONE);
    assert_int_equal(a2.epoch, 2);
    reply_t b2 = ack(&f, "b", 2, &rb.assignment);
    assert_true(b2.has_assignment);
    assert_int_equal(gr_assignment_size(&b2.assignment), 2);
    assert_false(gr_assignment_overlaps(&b2.assignment, &a1.assignment));
    reply_t b3 = ack(&f, "b", 2, &b2.assignment);
    assert_int_equal(b3.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_STABLE);
    gr_assignment_t *sets[] = {&ra.assignment, &rb.assignment, &a1.assignment, &b1.assignment,
                               &a2.assignment, &b2.assignment, &b3.assignment};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        gr_assignment_free(sets[i]);
    fake_fini(&f);
}

static void test_leave_frees_partitions(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    hb_t leave = {.version = 1, .member_id = "a", .epoch = -1};
    reply_t r = beat(&f, &leave);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(r.epoch, -1);
    assert_int_equal(f.g->consumer->member_count, 0);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_EMPTY);
    assert_int_equal(f.g->state, GR_GROUP_EMPTY);
    assert_int_equal(gr_cgroup_partition_epoch(f.g->consumer, fake_group_topic_id(1), 0), -1);
    /* Leaving twice: unknown. */
    assert_int_equal(beat(&f, &leave).error, GR_KERR_UNKNOWN_MEMBER_ID);
    gr_assignment_free(&ra.assignment);
    fake_fini(&f);
}

static void expect_invalid(fake_t *f, hb_t h, const char *message)
{
    reply_t r = beat(f, &h);
    assert_int_equal(r.error, GR_KERR_INVALID_REQUEST);
    assert_string_equal(r.message, message);
}

static void test_invalid_requests(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    expect_invalid(&f, (hb_t){.version = 1, .member_id = "", .epoch = 0, .topic = "t"},
                   "MemberId can't be empty.");
    expect_invalid(&f, (hb_t){.version = 0, .member_id = "", .epoch = 3},
                   "MemberId can't be empty.");
    expect_invalid(&f, (hb_t){.version = 1, .member_id = "a", .epoch = 0},
                   "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when "
                   "(re-)joining.");
    expect_invalid(&f, (hb_t){.version = 1, .member_id = "a", .epoch = -3},
                   "MemberEpoch is invalid.");
    expect_invalid(&f, (hb_t){.version = 1, .member_id = "a", .epoch = -2},
                   "InstanceId can't be null.");
    expect_invalid(
        &f, (hb_t){.version = 1, .member_id = "a", .epoch = 0, .instance_id = "", .topic = "t"},
        "InstanceId can't be empty.");
    hb_t owned = {.version = 1, .member_id = "a", .epoch = 0, .topic = "t"};
    assert_int_equal(gr_assignment_add(&owned.owned, fake_group_topic_id(1), 0), 0);
    expect_invalid(&f, owned, "TopicPartitions must be empty when (re-)joining.");
    gr_assignment_free(&owned.owned);
    reply_t r = beat(
        &f,
        &(hb_t){.version = 1, .member_id = "a", .epoch = 0, .topic = "t", .assignor = "sticky"});
    assert_int_equal(r.error, GR_KERR_UNSUPPORTED_ASSIGNOR);
    assert_int_equal(f.g->consumer->member_count, 0);
    fake_fini(&f);
}

static void test_epoch_fencing(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    gr_assignment_t none = GR_ASSIGNMENT_INIT;
    assert_int_equal(ack(&f, "a", 2, &ra.assignment).error, GR_KERR_FENCED_MEMBER_EPOCH);
    assert_int_equal(ack(&f, "zz", 1, &none).error, GR_KERR_UNKNOWN_MEMBER_ID);
    /* A second member bumps the epochs; a moves to 2 after revoking. */
    reply_t rb = join(&f, "b", NULL);
    reply_t a1 = ack(&f, "a", 1, &ra.assignment);
    reply_t a2 = ack(&f, "a", 1, &a1.assignment);
    assert_int_equal(a2.epoch, 2);
    /* The previous epoch with a subset of its partitions: the reply was lost, accepted. */
    assert_int_equal(ack(&f, "a", 1, &a1.assignment).error, GR_KERR_NONE);
    /* The previous epoch owning more than it has: fenced. */
    assert_int_equal(ack(&f, "a", 1, &ra.assignment).error, GR_KERR_FENCED_MEMBER_EPOCH);
    gr_assignment_free(&ra.assignment);
    gr_assignment_free(&rb.assignment);
    gr_assignment_free(&a1.assignment);
    gr_assignment_free(&a2.assignment);
    fake_fini(&f);
}

static void test_max_size(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    const char *ids[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        reply_t r = join(&f, ids[i], NULL);
        assert_int_equal(r.error, GR_KERR_NONE);
        gr_assignment_free(&r.assignment);
    }
    assert_int_equal(join_only(&f, "d", NULL), GR_KERR_GROUP_MAX_SIZE_REACHED);
    reply_t again = join(&f, "a", NULL); /* a member already in is no new one */
    assert_int_equal(again.error, GR_KERR_NONE);
    gr_assignment_free(&again.assignment);
    fake_fini(&f);
}

static void test_static_member_rejoins_without_rebalance(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r1 = join(&f, "a1", "inst");
    int32_t epoch = f.g->consumer->group_epoch;
    /* Another process with the same instance id while a1 holds it. */
    assert_int_equal(join_only(&f, "a2", "inst"), GR_KERR_UNRELEASED_INSTANCE_ID);
    /* A heartbeat naming the instance with another member id. */
    hb_t wrong = {
        .version = 1, .member_id = "a2", .epoch = 1, .instance_id = "inst", .owned_sent = true};
    assert_int_equal(beat(&f, &wrong).error, GR_KERR_FENCED_INSTANCE_ID);
    /* a1 leaves temporarily (-2): it keeps its place and partitions. */
    hb_t leave = {.version = 1, .member_id = "a1", .epoch = -2, .instance_id = "inst"};
    reply_t l = beat(&f, &leave);
    assert_int_equal(l.error, GR_KERR_NONE);
    assert_int_equal(l.epoch, -2);
    assert_int_equal(f.g->consumer->member_count, 1);
    assert_int_equal(gr_cgroup_partition_epoch(f.g->consumer, fake_group_topic_id(1), 0), -2);
    /* It comes back as a2: same partitions, no new group epoch. */
    reply_t r2 = join(&f, "a2", "inst");
    assert_int_equal(r2.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, epoch);
    assert_int_equal(r2.epoch, epoch);
    assert_true(gr_assignment_equal(&r1.assignment, &r2.assignment));
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str("a1")));
    gr_assignment_free(&r1.assignment);
    gr_assignment_free(&r2.assignment);
    fake_fini(&f);
}

static void test_static_member_session_expires(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = join(&f, "a1", "inst");
    beat(&f, &(hb_t){.version = 1, .member_id = "a1", .epoch = -2, .instance_id = "inst"});
    assert_int_equal(f.g->consumer->member_count, 1);
    fire(&f, GR_GROUP_TIMER_CONSUMER_SESSION, "a1");
    assert_int_equal(f.g->consumer->member_count, 0);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_EMPTY);
    gr_assignment_free(&r.assignment);
    fake_fini(&f);
}

static void test_rebalance_timeout_fences(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    reply_t rb = join(&f, "b", NULL);
    reply_t a1 = ack(&f, "a", 1, &ra.assignment); /* must revoke now */
    assert_int_equal(member(&f, "a")->state, GR_CMEMBER_UNREVOKED_PARTITIONS);
    fire(&f, GR_GROUP_TIMER_CONSUMER_REBALANCE, "a");
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str("a")));
    /* b gets everything once the target is recomputed. */
    reply_t b1 = ack(&f, "b", 2, &rb.assignment);
    assert_int_equal(b1.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&b1.assignment), 4);
    assert_int_equal(b1.epoch, 3);
    gr_assignment_free(&ra.assignment);
    gr_assignment_free(&rb.assignment);
    gr_assignment_free(&a1.assignment);
    gr_assignment_free(&b1.assignment);
    fake_fini(&f);
}

static void test_new_partitions_bump_epoch(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    assert_int_equal(f.g->consumer->group_epoch, 1);
    f.topics.topics[0].partitions = 6;
    reply_t r = ack(&f, "a", 1, &ra.assignment);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, 2);
    assert_int_equal(r.epoch, 2);
    assert_int_equal(gr_assignment_size(&r.assignment), 6);
    /* A subscribed topic that appears counts too. */
    reply_t s = beat(&f, &(hb_t){.version = 1, .member_id = "a", .epoch = 2, .topic = "u"});
    assert_int_equal(s.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&s.assignment), 0);
    add_topic(&f, "u", 2, 2);
    assert_int_equal(s.epoch, 2); /* it still owes t's partitions */
    reply_t u = ack(&f, "a", s.epoch, &s.assignment);
    assert_int_equal(u.error, GR_KERR_NONE);
    assert_int_equal(u.epoch, 4);
    assert_int_equal(gr_assignment_size(&u.assignment), 2);
    gr_assignment_free(&ra.assignment);
    gr_assignment_free(&r.assignment);
    gr_assignment_free(&s.assignment);
    gr_assignment_free(&u.assignment);
    fake_fini(&f);
}

static void test_offset_checks(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    gr_cgroup_t *cg = f.g->consumer;
    gr_str_t none = {NULL, GR_NULL_LEN};
    /* Empty group: an admin commit (no member, -1) is taken. */
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str(""), none, -1), GR_KERR_NONE);
    reply_t ra = join(&f, "a", NULL);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str(""), none, -1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("a"), none, 1), GR_KERR_NONE);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("a"), none, 0),
                     GR_KERR_STALE_MEMBER_EPOCH);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("a"), none, 2),
                     GR_KERR_FENCED_MEMBER_EPOCH);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("b"), none, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    assert_int_equal(gr_cgroup_check_fetch(cg, none, -1), GR_KERR_NONE);
    assert_int_equal(gr_cgroup_check_fetch(cg, gr_str("a"), 1), GR_KERR_NONE);
    assert_int_equal(gr_cgroup_check_fetch(cg, gr_str("a"), 0), GR_KERR_STALE_MEMBER_EPOCH);
    assert_int_equal(gr_cgroup_check_fetch(cg, gr_str("x"), 1), GR_KERR_UNKNOWN_MEMBER_ID);
    assert_true(gr_cgroup_subscribed_to(cg, gr_str("t")));
    assert_false(gr_cgroup_subscribed_to(cg, gr_str("u")));
    gr_assignment_free(&ra.assignment);
    fake_fini(&f);
}

static void test_classic_apis_on_consumer_group(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    gr_str_t none = {NULL, GR_NULL_LEN};
    assert_int_equal(gr_group_heartbeat(f.g, &f.env, gr_str("a"), none, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("a"), none), GR_KERR_UNKNOWN_MEMBER_ID);
    assert_false(gr_group_become_classic(f.g, &f.env));
    /* Empty again: a classic join may take the id over. */
    assert_int_equal(beat(&f, &(hb_t){.version = 1, .member_id = "a", .epoch = -1}).error,
                     GR_KERR_NONE);
    assert_true(gr_group_become_classic(f.g, &f.env));
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CLASSIC);
    assert_null(f.g->consumer);
    gr_assignment_free(&ra.assignment);
    fake_fini(&f);
}

static void test_changes_are_stored(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t ra = join(&f, "a", NULL);
    assert_int_equal(f.stores, 1);
    /* Nothing changed: nothing written. */
    reply_t again = ack(&f, "a", 1, &ra.assignment);
    assert_int_equal(again.error, GR_KERR_NONE);
    assert_int_equal(f.stores, 1);
    /* A leave carries the member's tombstones. */
    assert_int_equal(beat(&f, &(hb_t){.version = 1, .member_id = "a", .epoch = -1}).error,
                     GR_KERR_NONE);
    assert_int_equal(f.stores, 2);
    assert_int_equal(f.removed_stored, 1);
    /* A failed write fails the heartbeat. */
    f.store_error = GR_KERR_NOT_COORDINATOR;
    assert_int_equal(join_only(&f, "b", NULL), GR_KERR_NOT_COORDINATOR);
    gr_assignment_free(&ra.assignment);
    gr_assignment_free(&again.assignment);
    fake_fini(&f);
}

/* Partitions 0 and 1 of "t" have their replicas in rack r1, 2 and 3 in r2. */
static int32_t fake_racks(void *o, const char *topic, int32_t partition, const char **racks,
                          int32_t cap)
{
    (void)o;
    if (strcmp(topic, "t") != 0 || cap < 1)
        return 0;
    racks[0] = partition < 2 ? "r1" : "r2";
    return 1;
}

/*
 * With racks, the member in r2 that held everything keeps 2 and 3 and the
 * newcomer in r1 gets 0 and 1; rack-blind stickiness would keep 0 and 1.
 */
static void test_assignment_follows_replica_racks(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.partition_racks = fake_racks;
    hb_t a = {.version = 1, .member_id = "a", .epoch = 0, .rack = "r2", .topic = "t"};
    reply_t ra = beat(&f, &a);
    assert_int_equal(ra.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&ra.assignment), 4);
    hb_t b = {.version = 1, .member_id = "b", .epoch = 0, .rack = "r1", .topic = "t"};
    reply_t rb = beat(&f, &b);
    assert_int_equal(rb.error, GR_KERR_NONE);
    gr_uuid_t t = fake_group_topic_id(1);
    const gr_assignment_t *target_b = &member(&f, "b")->target;
    assert_true(gr_assignment_contains(target_b, t, 0) && gr_assignment_contains(target_b, t, 1));
    const gr_assignment_t *target_a = &member(&f, "a")->target;
    assert_true(gr_assignment_contains(target_a, t, 2) && gr_assignment_contains(target_a, t, 3));
    gr_assignment_free(&ra.assignment);
    gr_assignment_free(&rb.assignment);
    fake_fini(&f);
}

/* A null entry in SubscribedTopicNames is INVALID_REQUEST, and leaves no member behind. */
static void test_null_topic_name_is_invalid(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    gr_str_t topics[] = {gr_str("t"), {NULL, GR_NULL_LEN}};
    gr_assignment_t none = GR_ASSIGNMENT_INIT;
    gr_cgroup_heartbeat_args_t a = {.version = 1,
                                    .member_id = gr_str("a"),
                                    .member_epoch = 0,
                                    .instance_id = opt(NULL),
                                    .rack_id = opt(NULL),
                                    .rebalance_timeout_ms = REBALANCE_MS,
                                    .subscribed_topics = topics,
                                    .subscribed_count = 2,
                                    .subscribed_regex = opt(NULL),
                                    .server_assignor = opt(NULL),
                                    .owned = &none};
    const char *message = NULL;
    assert_int_equal(gr_cgroup_heartbeat_validate(&f.env, &a, &message), GR_KERR_INVALID_REQUEST);
    assert_non_null(message);
    assert_int_equal(f.g->consumer->member_count, 0);
    fake_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reconcile_revokes_before_assigning),
        cmocka_unit_test(test_reconcile_waits_for_release),
        cmocka_unit_test(test_reconcile_unknown_member_must_rejoin),
        cmocka_unit_test(test_join_v0_gets_member_id_and_everything),
        cmocka_unit_test(test_partition_moves_after_revocation),
        cmocka_unit_test(test_leave_frees_partitions),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_epoch_fencing),
        cmocka_unit_test(test_max_size),
        cmocka_unit_test(test_static_member_rejoins_without_rebalance),
        cmocka_unit_test(test_static_member_session_expires),
        cmocka_unit_test(test_rebalance_timeout_fences),
        cmocka_unit_test(test_new_partitions_bump_epoch),
        cmocka_unit_test(test_offset_checks),
        cmocka_unit_test(test_classic_apis_on_consumer_group),
        cmocka_unit_test(test_changes_are_stored),
        cmocka_unit_test(test_assignment_follows_replica_racks),
        cmocka_unit_test(test_null_topic_name_is_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
