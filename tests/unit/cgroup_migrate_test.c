/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-848's online migration (src/group/cgroup_migrate.c) and classic
 * members inside a consumer group (src/group/cgroup_classic.c), driven
 * through a fake env as group_test.c and cgroup_test.c do: a classic group
 * of consumers upgraded by a ConsumerGroupHeartbeat, its classic members
 * rejoining and handing partitions over one revocation at a time, the
 * classic requests' answers and timers, and the downgrade when the last
 * consumer-protocol member leaves. The embedded ConsumerProtocol bytes are
 * real (encoded with the generated codec), so the tests see what clients see.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/consumer_protocol.h"
#include "fake_group_env.h"
#include "group/cgroup.h"
#include "group/cgroup_classic.h"
#include "protocol/arena.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

#define SESSION_MS   10000
#define REBALANCE_MS 30000
#define PARTITIONS   4

static const char *const assignors[] = {"uniform", "range"};
static const gr_str_t null_str = {NULL, GR_NULL_LEN};

typedef struct fake {
    fake_group_clock_t clock; /* first: the env's opaque is the clock too */
    int stores;
    gr_group_env_t env;
    gr_group_t *g;
} fake_t;

typedef struct answer {
    gr_group_waiter_t w;
    bool answered;
    gr_kerr_t error;
    char member_id[64];
    char leader[64];
    char protocol[32];
    int32_t generation;
    uint8_t assignment[256];
    int32_t assignment_len;
} answer_t;

static gr_kerr_t fake_store(void *o, gr_group_t *g)
{
    (void)g;
    ((fake_t *)o)->stores++;
    return GR_KERR_NONE;
}

static void fake_join(void *o, gr_group_waiter_t *w, const gr_join_result_t *r)
{
    (void)o;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered);
    a->answered = true;
    a->error = r->error;
    a->generation = r->generation;
    snprintf(a->member_id, sizeof a->member_id, "%s", r->member_id ? r->member_id : "");
    snprintf(a->leader, sizeof a->leader, "%s", r->leader_id ? r->leader_id : "");
    snprintf(a->protocol, sizeof a->protocol, "%s", r->protocol_name ? r->protocol_name : "");
}

static void fake_sync(void *o, gr_group_waiter_t *w, const gr_sync_result_t *r)
{
    (void)o;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered);
    a->answered = true;
    a->error = r->error;
    assert_true(r->assignment_len <= (int32_t)sizeof a->assignment);
    a->assignment_len = r->assignment ? r->assignment_len : 0;
    if (a->assignment_len)
        memcpy(a->assignment, r->assignment, (size_t)a->assignment_len);
}

static gr_uuid_t topic_t(void)
{
    return fake_group_topic_id(1);
}

static bool fake_topic_find(void *o, gr_str_t name, gr_cgroup_topic_info_t *out)
{
    (void)o;
    if (!gr_str_eq_c(name, "t"))
        return false;
    *out = (gr_cgroup_topic_info_t){topic_t(), PARTITIONS};
    return true;
}

static void fake_init(fake_t *f, gr_cgroup_migration_t policy)
{
    memset(f, 0, sizeof(*f));
    f->clock.now = 1000000;
    f->env = (gr_group_env_t){.opaque = f,
                              .limits = {.min_session_timeout_ms = 6000,
                                         .max_session_timeout_ms = 1800000,
                                         .initial_rebalance_delay_ms = 0,
                                         .max_size = 1000},
                              .now_ms = fake_group_now,
                              .timer_arm = fake_group_arm,
                              .timer_cancel = fake_group_cancel,
                              .store_group = fake_store,
                              .respond_join = fake_join,
                              .respond_sync = fake_sync,
                              .consumer_limits = {.migration = policy,
                                                  .heartbeat_interval_ms = 5000,
                                                  .session_timeout_ms = 45000,
                                                  .max_size = 10,
                                                  .assignors = assignors,
                                                  .assignor_count = 2},
                              .topic_find = fake_topic_find};
    f->g = gr_group_new("g", 1, 0, f->clock.now);
    assert_non_null(f->g);
}

static void fake_fini(fake_t *f)
{
    gr_group_free(f->g, &f->env);
    assert_int_equal(f->clock.timer_count, 0);
}

static void fire(fake_t *f, gr_group_timer_kind_t kind, const char *member_id)
{
    fake_group_fire(&f->clock, &f->env, kind, member_id);
}

static bool armed(fake_t *f, gr_group_timer_kind_t kind, const char *member_id)
{
    return fake_group_timer(&f->clock, kind, member_id) != NULL;
}

/* --- ConsumerProtocol bytes ----------------------------------------------------------- */

typedef struct bytes {
    uint8_t buf[256];
    int32_t len;
} bytes_t;

/* A v3 subscription to "t" owning the partitions in owned[0..n). */
static bytes_t subscription(const int32_t *owned, int n)
{
    gr_consumer_protocol_subscription_t s;
    gr_consumer_protocol_subscription_init(&s);
    gr_str_t topic = gr_str("t");
    gr_consumer_protocol_subscription_topic_partition_t tp = {topic, (int32_t *)owned, n};
    s.topics = &topic;
    s.topics_count = 1;
    s.owned_partitions = &tp;
    s.owned_partitions_count = n ? 1 : 0;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int16(&w, 3);
    assert_int_equal(gr_consumer_protocol_subscription_encode(&w, 3, &s), 0);
    bytes_t out = {.len = (int32_t)w.len};
    assert_true(w.len <= sizeof out.buf);
    memcpy(out.buf, w.buf, w.len);
    gr_writer_fini(&w);
    return out;
}

static bytes_t assignment_of(const int32_t *parts, int n)
{
    gr_consumer_protocol_assignment_t a;
    gr_consumer_protocol_assignment_init(&a);
    gr_consumer_protocol_assignment_topic_partition_t tp = {gr_str("t"), (int32_t *)parts, n};
    a.assigned_partitions = &tp;
    a.assigned_partitions_count = 1;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int16(&w, 3);
    assert_int_equal(gr_consumer_protocol_assignment_encode(&w, 3, &a), 0);
    bytes_t out = {.len = (int32_t)w.len};
    memcpy(out.buf, w.buf, w.len);
    gr_writer_fini(&w);
    return out;
}

/* The partitions of "t" a SyncGroup answer carries, as a bit set. */
static unsigned decoded(const answer_t *a)
{
    gr_reader_t r;
    gr_reader_init(&r, a->assignment, (size_t)a->assignment_len);
    int16_t v = gr_read_int16(&r);
    assert_int_equal(v, 3);
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_consumer_protocol_assignment_t as;
    assert_int_equal(gr_consumer_protocol_assignment_decode(&r, v, &arena, &as), 0);
    unsigned bits = 0;
    for (int32_t t = 0; t < as.assigned_partitions_count; t++) {
        assert_true(gr_str_eq_c(as.assigned_partitions[t].topic, "t"));
        for (int32_t i = 0; i < as.assigned_partitions[t].partitions_count; i++)
            bits |= 1u << as.assigned_partitions[t].partitions[i];
    }
    gr_arena_fini(&arena);
    return bits;
}

static unsigned bits_of(const gr_assignment_t *a)
{
    unsigned bits = 0;
    const gr_assignment_topic_t *t = gr_assignment_topic(a, topic_t());
    for (int32_t i = 0; t && i < t->partition_count; i++)
        bits |= 1u << t->partitions[i];
    return bits;
}

/* --- classic requests -------------------------------------------------------------------- */

static void classic_join(fake_t *f, const char *id, const bytes_t *meta, answer_t *a)
{
    gr_join_protocol_t p = {gr_str("cooperative-sticky"), {meta->buf, meta->len}};
    gr_join_args_t args = {.member_id = gr_str(id),
                           .instance_id = null_str,
                           .client_id = gr_str("client"),
                           .client_host = gr_str("/127.0.0.1"),
                           .session_timeout_ms = SESSION_MS,
                           .rebalance_timeout_ms = REBALANCE_MS,
                           .protocol_type = gr_str("consumer"),
                           .protocols = &p,
                           .protocol_count = 1,
                           .require_known_member_id = true};
    memset(a, 0, sizeof(*a));
    gr_group_join(f->g, &f->env, &args, &a->w);
}

static void classic_sync(fake_t *f, const char *id, int32_t generation,
                         const gr_sync_assignment_t *given, int32_t count, answer_t *a)
{
    gr_sync_args_t args = {.member_id = gr_str(id),
                           .instance_id = null_str,
                           .generation = generation,
                           .protocol_type = gr_str("consumer"),
                           .protocol_name = gr_str("cooperative-sticky"),
                           .assignments = given,
                           .assignment_count = count};
    memset(a, 0, sizeof(*a));
    gr_group_sync(f->g, &f->env, &args, &a->w);
}

static gr_kerr_t classic_heartbeat(fake_t *f, const char *id, int32_t generation)
{
    return gr_group_heartbeat(f->g, &f->env, gr_str(id), null_str, generation);
}

/* A classic group of "a" (partitions 0,1) and "b" (2,3) at generation 1, Stable. */
static void classic_group(fake_t *f)
{
    bytes_t none = subscription(NULL, 0);
    answer_t ja, jb, sa, sb;
    classic_join(f, "", &none, &ja);
    assert_int_equal(ja.error, GR_KERR_MEMBER_ID_REQUIRED);
    char a_id[64];
    snprintf(a_id, sizeof a_id, "%s", ja.member_id);
    classic_join(f, a_id, &none, &ja); /* waits for the initial delay */
    classic_join(f, "", &none, &jb);
    char b_id[64];
    snprintf(b_id, sizeof b_id, "%s", jb.member_id);
    classic_join(f, b_id, &none, &jb);
    while (!ja.answered)
        fire(f, GR_GROUP_TIMER_JOIN, NULL); /* the initial delay, then the join */
    assert_true(ja.answered && jb.answered);
    assert_int_equal(ja.generation, 1);
    /* Rename for the tests: the members are "a" and "b" in join order. */
    free(f->g->members->member_id);
    f->g->members->member_id = strdup("a");
    free(f->g->members->next->member_id);
    f->g->members->next->member_id = strdup("b");
    bytes_t pa = assignment_of((int32_t[]){0, 1}, 2), pb = assignment_of((int32_t[]){2, 3}, 2);
    gr_sync_assignment_t given[] = {{gr_str("a"), {pa.buf, pa.len}},
                                    {gr_str("b"), {pb.buf, pb.len}}};
    classic_sync(f, "b", 1, NULL, 0, &sb);
    classic_sync(f, "a", 1, given, 2, &sa);
    assert_true(sa.answered && sb.answered);
    assert_int_equal(f->g->state, GR_GROUP_STABLE);
}

/* --- consumer-protocol heartbeats ----------------------------------------------------------- */

static gr_cgroup_heartbeat_result_t beat(fake_t *f, const char *id, int32_t epoch,
                                         const gr_assignment_t *owned)
{
    gr_str_t topic = gr_str("t");
    gr_cgroup_heartbeat_args_t a = {.version = 1,
                                    .member_id = gr_str(id),
                                    .member_epoch = epoch,
                                    .instance_id = null_str,
                                    .rack_id = null_str,
                                    .rebalance_timeout_ms = epoch == 0 ? REBALANCE_MS : -1,
                                    .subscribed_topics = &topic,
                                    .subscribed_count = epoch == 0 ? 1 : -1,
                                    .subscribed_regex = null_str,
                                    .server_assignor = null_str,
                                    .owned = owned,
                                    .client_id = gr_str("client"),
                                    .client_host = gr_str("/127.0.0.1")};
    gr_cgroup_heartbeat_result_t out;
    if (epoch == 0) {
        gr_kerr_t err = gr_group_become_consumer(f->g, &f->env);
        if (err) {
            memset(&out, 0, sizeof out);
            out.error = err;
            return out;
        }
    }
    gr_cgroup_heartbeat(f->g, &f->env, &a, &out);
    return out;
}

static gr_cmember_t *member(fake_t *f, const char *id)
{
    gr_cmember_t *m = gr_cgroup_find_member(f->g->consumer, gr_str(id));
    assert_non_null(m);
    return m;
}

/* --- tests ----------------------------------------------------------------------------------- */

static void test_upgrade_keeps_assignments(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_BIDIRECTIONAL);
    classic_group(&f);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    gr_cgroup_heartbeat_result_t r = beat(&f, "c", 0, &empty);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CONSUMER);
    gr_cgroup_t *cg = f.g->consumer;
    /* The classic members at the generation, with their assignments; c joined past them. */
    assert_int_equal(member(&f, "a")->member_epoch, 1);
    assert_non_null(member(&f, "a")->classic);
    assert_int_equal(bits_of(&member(&f, "a")->assigned), 0x3);
    assert_int_equal(bits_of(&member(&f, "b")->assigned), 0xc);
    assert_int_equal(cg->group_epoch, 2);
    assert_null(member(&f, "c")->classic);
    /* Every partition is still owned by a classic member: c waits for one. */
    assert_int_equal(gr_assignment_size(&member(&f, "c")->assigned), 0);
    assert_int_equal(member(&f, "c")->state, GR_CMEMBER_UNRELEASED_PARTITIONS);
    /* The classic members are told to rejoin, with their rebalance timeout to do it. */
    assert_int_equal(classic_heartbeat(&f, "a", 1), GR_KERR_REBALANCE_IN_PROGRESS);
    assert_true(armed(&f, GR_GROUP_TIMER_CONSUMER_JOIN, "a"));
    assert_int_equal(classic_heartbeat(&f, "a", 0), GR_KERR_ILLEGAL_GENERATION);
    /* One of them gives a partition up to c (the assignor is sticky): x. */
    bool a_gives = bits_of(&member(&f, "a")->target) != 0x3;
    const char *x = a_gives ? "a" : "b";
    unsigned had = a_gives ? 0x3 : 0xc, x_target = bits_of(&member(&f, x)->target);
    assert_int_equal(x_target & ~had, 0);
    assert_int_equal(bits_of(&member(&f, a_gives ? "b" : "a")->target), a_gives ? 0xc : 0x3);
    /* x rejoins owning what it had (cooperative): it keeps its target, revokes the rest. */
    bytes_t owned_x = subscription(a_gives ? (int32_t[]){0, 1} : (int32_t[]){2, 3}, 2);
    answer_t j, s;
    classic_join(&f, x, &owned_x, &j);
    assert_int_equal(j.error, GR_KERR_NONE);
    assert_string_equal(j.leader, "");
    assert_string_equal(j.protocol, "cooperative-sticky");
    assert_false(armed(&f, GR_GROUP_TIMER_CONSUMER_JOIN, x));
    assert_true(armed(&f, GR_GROUP_TIMER_CONSUMER_SYNC, x));
    assert_int_equal(member(&f, x)->state, GR_CMEMBER_UNREVOKED_PARTITIONS);
    assert_int_equal(j.generation, 1); /* still its old epoch until it revokes */
    classic_sync(&f, x, j.generation, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_NONE);
    assert_int_equal(decoded(&s), x_target);
    assert_false(armed(&f, GR_GROUP_TIMER_CONSUMER_SYNC, x));
    /* c cannot have the revoked partition before x says it let it go. */
    r = beat(&f, "c", 2, &empty);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(gr_assignment_size(&member(&f, "c")->assigned), 0);
    /* Revoked: x rejoins owning its target only and moves to the group epoch. */
    assert_int_equal(classic_heartbeat(&f, x, 1), GR_KERR_REBALANCE_IN_PROGRESS);
    int32_t kept[PARTITIONS], n = 0;
    for (int p = 0; p < PARTITIONS; p++)
        if (x_target & (1u << p))
            kept[n++] = p;
    bytes_t owned_kept = subscription(kept, n);
    classic_join(&f, x, &owned_kept, &j);
    assert_int_equal(j.error, GR_KERR_NONE);
    assert_int_equal(j.generation, 2);
    classic_sync(&f, x, 2, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_NONE);
    assert_int_equal(classic_heartbeat(&f, x, 2), GR_KERR_NONE);
    /* c now gets what x released. */
    r = beat(&f, "c", 2, &empty);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(bits_of(&member(&f, "c")->assigned), had & ~x_target);
    assert_int_equal(member(&f, "c")->state, GR_CMEMBER_STABLE);
    /* The other classic member still has to rejoin to reach epoch 2 (nothing to revoke). */
    const char *y = a_gives ? "b" : "a";
    assert_int_equal(classic_heartbeat(&f, y, 1), GR_KERR_REBALANCE_IN_PROGRESS);
    bytes_t owned_y = subscription(a_gives ? (int32_t[]){2, 3} : (int32_t[]){0, 1}, 2);
    classic_join(&f, y, &owned_y, &j);
    assert_int_equal(j.generation, 2);
    assert_int_equal(f.g->consumer->state, GR_CGROUP_STABLE);
    /* Commits: a classic member's generation is checked as such. */
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("a"), null_str, 1),
                     GR_KERR_ILLEGAL_GENERATION);
    assert_int_equal(gr_group_check_commit(f.g, &f.env, gr_str("a"), null_str, 2), GR_KERR_NONE);
    fake_fini(&f);
}

static void test_upgrade_refused(void **state)
{
    (void)state;
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    fake_t f;
    /* Policy "downgrade" or "disabled": the classic group stays, the heartbeat gets
     * GROUP_ID_NOT_FOUND. */
    gr_cgroup_migration_t refusing[] = {GR_CGROUP_MIGRATION_DISABLED,
                                        GR_CGROUP_MIGRATION_DOWNGRADE};
    for (int i = 0; i < 2; i++) {
        fake_init(&f, refusing[i]);
        classic_group(&f);
        assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_GROUP_ID_NOT_FOUND);
        assert_int_equal(f.g->type, GR_GROUP_TYPE_CLASSIC);
        assert_int_equal(f.g->member_count, 2);
        fake_fini(&f);
    }
    /* Too many members for group.consumer.max.size. */
    fake_init(&f, GR_CGROUP_MIGRATION_UPGRADE);
    f.env.consumer_limits.max_size = 1;
    classic_group(&f);
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_GROUP_ID_NOT_FOUND);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CLASSIC);
    fake_fini(&f);
    /* Not Kafka's consumer protocol type. */
    fake_init(&f, GR_CGROUP_MIGRATION_UPGRADE);
    classic_group(&f);
    free(f.g->protocol_type);
    f.g->protocol_type = strdup("connect");
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_GROUP_ID_NOT_FOUND);
    fake_fini(&f);
}

static void test_upgrade_ends_classic_rebalance(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_UPGRADE);
    classic_group(&f);
    /* b rejoins with new metadata: a rebalance starts, b's JoinGroup waits for a. */
    bytes_t owning = subscription((int32_t[]){2, 3}, 2);
    answer_t jb;
    classic_join(&f, "b", &owning, &jb);
    assert_false(jb.answered);
    assert_int_equal(f.g->state, GR_GROUP_PREPARING_REBALANCE);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_NONE);
    assert_true(jb.answered);
    assert_int_equal(jb.error, GR_KERR_REBALANCE_IN_PROGRESS);
    assert_int_equal(f.g->consumer->member_count, 3);
    fake_fini(&f);
}

static void test_classic_member_errors_and_timers(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_BIDIRECTIONAL);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_NONE);
    bytes_t none = subscription(NULL, 0);
    answer_t j, s;
    /* KIP-394: a dynamic member without an id gets one first. */
    classic_join(&f, "", &none, &j);
    assert_int_equal(j.error, GR_KERR_MEMBER_ID_REQUIRED);
    assert_int_equal(strlen(j.member_id), 22);
    assert_int_equal(f.g->consumer->member_count, 1);
    /* Another protocol type is inconsistent. */
    gr_join_protocol_t p = {gr_str("range"), {none.buf, none.len}};
    gr_join_args_t bad = {.member_id = gr_str("x"),
                          .instance_id = null_str,
                          .session_timeout_ms = SESSION_MS,
                          .rebalance_timeout_ms = REBALANCE_MS,
                          .protocol_type = gr_str("connect"),
                          .protocols = &p,
                          .protocol_count = 1};
    memset(&j, 0, sizeof j);
    gr_group_join(f.g, &f.env, &bad, &j.w);
    assert_int_equal(j.error, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
    /* d joins as a classic member: the assignor gives it half. */
    classic_join(&f, "d", &none, &j);
    assert_int_equal(j.error, GR_KERR_NONE);
    assert_int_equal(f.g->consumer->group_epoch, 2);
    assert_true(armed(&f, GR_GROUP_TIMER_CONSUMER_SESSION, "d"));
    /* A sync at another generation, or for a consumer-protocol member, is refused. */
    classic_sync(&f, "d", j.generation + 1, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_ILLEGAL_GENERATION);
    classic_sync(&f, "c", 1, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_UNKNOWN_MEMBER_ID);
    /* It never syncs: the sync timer fences it and the group epoch moves on. */
    fire(&f, GR_GROUP_TIMER_CONSUMER_SYNC, "d");
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str("d")));
    assert_int_equal(f.g->consumer->group_epoch, 3);
    /* e joins, then c's heartbeat moves the group: e is told to rejoin and does not. */
    classic_join(&f, "e", &none, &j);
    classic_sync(&f, "e", j.generation, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_NONE);
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("c"), null_str),
                     GR_KERR_UNKNOWN_MEMBER_ID); /* not a classic member */
    member(&f, "c");                             /* c is still there */
    f.g->consumer->group_epoch++;                /* as a subscription change would */
    assert_int_equal(classic_heartbeat(&f, "e", j.generation), GR_KERR_REBALANCE_IN_PROGRESS);
    fire(&f, GR_GROUP_TIMER_CONSUMER_JOIN, "e");
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str("e")));
    /* f joins and its session expires (its own session timeout). */
    classic_join(&f, "f", &none, &j);
    fire(&f, GR_GROUP_TIMER_CONSUMER_SESSION, "f");
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str("f")));
    /* LeaveGroup of a classic member. */
    classic_join(&f, "g", &none, &j);
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("g"), null_str), GR_KERR_NONE);
    assert_int_equal(f.g->consumer->member_count, 1);
    fake_fini(&f);
}

static void test_downgrade_when_last_consumer_member_leaves(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_BIDIRECTIONAL);
    classic_group(&f);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_NONE);
    int32_t epoch = f.g->consumer->group_epoch;
    unsigned a_target = bits_of(&member(&f, "a")->target);
    int stores = f.stores;
    /* The consumer member leaves: two classic members remain, the group turns classic. */
    gr_cgroup_heartbeat_result_t r = beat(&f, "c", -1, NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CLASSIC);
    assert_null(f.g->consumer);
    assert_int_equal(f.g->member_count, 2);
    assert_int_equal(f.g->generation, epoch);
    assert_int_equal(f.g->state, GR_GROUP_PREPARING_REBALANCE);
    assert_string_equal(f.g->protocol_name, "cooperative-sticky");
    assert_non_null(f.g->leader);
    assert_int_equal(f.stores, stores + 1); /* the classic group, stored as converted */
    gr_member_t *a = gr_group_find_member(f.g, gr_str("a"));
    assert_non_null(a);
    answer_t fake_answer = {.assignment_len = a->assignment_len};
    memcpy(fake_answer.assignment, a->assignment, (size_t)a->assignment_len);
    assert_int_equal(decoded(&fake_answer), a_target);
    /* The classic members learn of the rebalance through their heartbeat and rejoin. */
    assert_int_equal(classic_heartbeat(&f, "a", epoch), GR_KERR_REBALANCE_IN_PROGRESS);
    bytes_t none = subscription(NULL, 0);
    answer_t ja, jb;
    classic_join(&f, "a", &none, &ja);
    classic_join(&f, "b", &none, &jb);
    assert_true(ja.answered && jb.answered);
    assert_int_equal(ja.error, GR_KERR_NONE);
    assert_int_equal(ja.generation, epoch + 1);
    fake_fini(&f);
}

static void test_no_downgrade_without_policy(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_UPGRADE);
    classic_group(&f);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_NONE);
    assert_int_equal(beat(&f, "c", -1, NULL).error, GR_KERR_NONE);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CONSUMER);
    assert_int_equal(f.g->consumer->member_count, 2);
    /* A classic member leaving never downgrades: the last one leaves an empty consumer group. */
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("a"), null_str), GR_KERR_NONE);
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("b"), null_str), GR_KERR_NONE);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CONSUMER);
    assert_int_equal(f.g->state, GR_GROUP_EMPTY);
    fake_fini(&f);
}

static void test_classic_static_member_replaced(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_BIDIRECTIONAL);
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    assert_int_equal(beat(&f, "c", 0, &empty).error, GR_KERR_NONE);
    bytes_t none = subscription(NULL, 0);
    gr_join_protocol_t p = {gr_str("cooperative-sticky"), {none.buf, none.len}};
    gr_join_args_t args = {.member_id = gr_str(""),
                           .instance_id = gr_str("inst"),
                           .client_id = gr_str("client"),
                           .client_host = gr_str("/127.0.0.1"),
                           .session_timeout_ms = SESSION_MS,
                           .rebalance_timeout_ms = REBALANCE_MS,
                           .protocol_type = gr_str("consumer"),
                           .protocols = &p,
                           .protocol_count = 1,
                           .require_known_member_id = true};
    answer_t j;
    memset(&j, 0, sizeof j);
    gr_group_join(f.g, &f.env, &args, &j.w); /* static: no MEMBER_ID_REQUIRED */
    assert_int_equal(j.error, GR_KERR_NONE);
    char first[64];
    snprintf(first, sizeof first, "%s", j.member_id);
    int32_t epoch = f.g->consumer->group_epoch;
    /* Another id for the instance while the first holds it: fenced. */
    args.member_id = gr_str("other");
    memset(&j, 0, sizeof j);
    gr_group_join(f.g, &f.env, &args, &j.w);
    assert_int_equal(j.error, GR_KERR_FENCED_INSTANCE_ID);
    /* A restarted process (no member id) takes the instance over, without a new group epoch. */
    args.member_id = gr_str("");
    memset(&j, 0, sizeof j);
    gr_group_join(f.g, &f.env, &args, &j.w);
    assert_int_equal(j.error, GR_KERR_NONE);
    assert_string_not_equal(j.member_id, first);
    assert_null(gr_cgroup_find_member(f.g->consumer, gr_str(first)));
    assert_non_null(member(&f, j.member_id)->classic);
    assert_int_equal(f.g->consumer->member_count, 2);
    assert_int_equal(f.g->consumer->group_epoch, epoch);
    fake_fini(&f);
}

static void test_downgrade_when_static_member_replaced(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f, GR_CGROUP_MIGRATION_BIDIRECTIONAL);
    classic_group(&f); /* a (0,1) and b (2,3) */
    /* A static consumer-protocol member joins (upgrade), then b leaves. */
    gr_str_t topic = gr_str("t");
    gr_assignment_t empty = GR_ASSIGNMENT_INIT;
    gr_cgroup_heartbeat_args_t hb = {.version = 1,
                                     .member_id = gr_str("c"),
                                     .member_epoch = 0,
                                     .instance_id = gr_str("inst-c"),
                                     .rack_id = null_str,
                                     .rebalance_timeout_ms = REBALANCE_MS,
                                     .subscribed_topics = &topic,
                                     .subscribed_count = 1,
                                     .subscribed_regex = null_str,
                                     .server_assignor = null_str,
                                     .owned = &empty,
                                     .client_id = gr_str("client"),
                                     .client_host = gr_str("/127.0.0.1")};
    gr_cgroup_heartbeat_result_t out;
    assert_int_equal(gr_group_become_consumer(f.g, &f.env), GR_KERR_NONE);
    gr_cgroup_heartbeat(f.g, &f.env, &hb, &out);
    assert_int_equal(out.error, GR_KERR_NONE);
    assert_int_equal(gr_group_leave(f.g, &f.env, gr_str("b"), null_str), GR_KERR_NONE);
    unsigned c_target = bits_of(&member(&f, "c")->target);
    int32_t epoch = f.g->consumer->group_epoch;
    /* A classic consumer restarts with c's instance id: it replaces c, the group turns classic. */
    bytes_t none = subscription(NULL, 0);
    gr_join_protocol_t p = {gr_str("cooperative-sticky"), {none.buf, none.len}};
    gr_join_args_t args = {.member_id = gr_str(""),
                           .instance_id = gr_str("inst-c"),
                           .session_timeout_ms = SESSION_MS,
                           .rebalance_timeout_ms = REBALANCE_MS,
                           .protocol_type = gr_str("consumer"),
                           .protocols = &p,
                           .protocol_count = 1,
                           .require_known_member_id = true};
    answer_t j;
    memset(&j, 0, sizeof j);
    gr_group_join(f.g, &f.env, &args, &j.w);
    assert_int_equal(j.error, GR_KERR_NONE);
    assert_int_equal(f.g->type, GR_GROUP_TYPE_CLASSIC);
    assert_int_equal(f.g->state, GR_GROUP_STABLE); /* no rebalance: it has c's partitions */
    assert_int_equal(f.g->generation, epoch);
    assert_int_equal(f.g->member_count, 2);
    gr_member_t *n = gr_group_find_member(f.g, gr_str(j.member_id));
    assert_non_null(n);
    assert_string_equal(n->instance_id, "inst-c");
    answer_t got = {.assignment_len = n->assignment_len};
    memcpy(got.assignment, n->assignment, (size_t)n->assignment_len);
    gr_member_t *a = gr_group_find_member(f.g, gr_str("a"));
    answer_t got_a = {.assignment_len = a->assignment_len};
    memcpy(got_a.assignment, a->assignment, (size_t)a->assignment_len);
    /* It kept c's partitions and took b's share with the target its join computed. */
    assert_int_equal(decoded(&got) & c_target, c_target);
    assert_int_equal(decoded(&got) | decoded(&got_a), 0xf);
    assert_int_equal(decoded(&got) & decoded(&got_a), 0);
    fake_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upgrade_keeps_assignments),
        cmocka_unit_test(test_upgrade_refused),
        cmocka_unit_test(test_upgrade_ends_classic_rebalance),
        cmocka_unit_test(test_classic_member_errors_and_timers),
        cmocka_unit_test(test_downgrade_when_last_consumer_member_leaves),
        cmocka_unit_test(test_no_downgrade_without_policy),
        cmocka_unit_test(test_classic_static_member_replaced),
        cmocka_unit_test(test_downgrade_when_static_member_replaced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
