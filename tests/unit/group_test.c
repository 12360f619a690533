/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The classic group state machine (src/group/group.c) driven through a fake
 * env: a hand-advanced clock, timers fired in deadline order, a store that
 * can be made to fail, and waiters that record their answers. Also the
 * coordinator partition hash against golden values of Java's
 * String.hashCode (computed independently over UTF-16 code units).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_group_env.h"
#include "group/group.h"

#define SESSION_MS    10000
#define REBALANCE_MS  30000
#define INITIAL_DELAY 3000

typedef struct fake {
    fake_group_clock_t clock; /* first: the env's opaque is the clock too */
    int stores;
    gr_kerr_t store_error;
    gr_group_env_t env;
} fake_t;

typedef struct answer {
    gr_group_waiter_t w;
    bool answered;
    gr_kerr_t error;
    char member_id[128];
    char leader[128];
    int32_t generation;
    int32_t members;
    bool skip;
    char assignment[64];
} answer_t;

static gr_kerr_t fake_store(void *o, gr_group_t *g)
{
    (void)g;
    fake_t *f = o;
    f->stores++;
    return f->store_error;
}

static void fake_join(void *o, gr_group_waiter_t *w, const gr_join_result_t *r)
{
    (void)o;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered); /* exactly once */
    a->answered = true;
    a->error = r->error;
    snprintf(a->member_id, sizeof a->member_id, "%s", r->member_id ? r->member_id : "");
    snprintf(a->leader, sizeof a->leader, "%s", r->leader_id ? r->leader_id : "");
    a->generation = r->generation;
    a->members = r->member_count;
    a->skip = r->skip_assignment;
}

static void fake_sync(void *o, gr_group_waiter_t *w, const gr_sync_result_t *r)
{
    (void)o;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered);
    a->answered = true;
    a->error = r->error;
    snprintf(a->assignment, sizeof a->assignment, "%.*s", r->assignment_len,
             r->assignment ? (const char *)r->assignment : "");
}

static void fake_init(fake_t *f)
{
    memset(f, 0, sizeof(*f));
    f->clock.now = 1000000;
    f->env = (gr_group_env_t){.opaque = f,
                              .limits = {.min_session_timeout_ms = 6000,
                                         .max_session_timeout_ms = 1800000,
                                         .initial_rebalance_delay_ms = INITIAL_DELAY,
                                         .max_size = 1000},
                              .now_ms = fake_group_now,
                              .timer_arm = fake_group_arm,
                              .timer_cancel = fake_group_cancel,
                              .store_group = fake_store,
                              .respond_join = fake_join,
                              .respond_sync = fake_sync};
}

static void advance(fake_t *f, int64_t ms)
{
    fake_group_advance(&f->clock, &f->env, ms);
}

static const gr_join_protocol_t range_protocol[] = {{{"range", 5}, {(const uint8_t *)"m", 1}}};

static gr_join_args_t join_args(const char *member_id, const char *instance_id)
{
    return (gr_join_args_t){.member_id = gr_str(member_id ? member_id : ""),
                            .instance_id =
                                instance_id ? gr_str(instance_id) : (gr_str_t){NULL, GR_NULL_LEN},
                            .client_id = gr_str("client"),
                            .client_host = gr_str("/127.0.0.1"),
                            .session_timeout_ms = SESSION_MS,
                            .rebalance_timeout_ms = REBALANCE_MS,
                            .protocol_type = gr_str("consumer"),
                            .protocols = range_protocol,
                            .protocol_count = 1,
                            .require_known_member_id = true};
}

static void join(fake_t *f, gr_group_t *g, const gr_join_args_t *args, answer_t *a)
{
    memset(a, 0, sizeof(*a));
    gr_group_join(g, &f->env, args, &a->w);
}

/* A dynamic member's first join (MEMBER_ID_REQUIRED, then the real join). */
static void join_new(fake_t *f, gr_group_t *g, answer_t *a)
{
    gr_join_args_t args = join_args(NULL, NULL);
    join(f, g, &args, a);
    assert_true(a->answered);
    assert_int_equal(a->error, GR_KERR_MEMBER_ID_REQUIRED);
    assert_true(strncmp(a->member_id, "client-", 7) == 0);
    char id[128];
    snprintf(id, sizeof id, "%s", a->member_id);
    args = join_args(id, NULL);
    join(f, g, &args, a);
}

static void sync_member(fake_t *f, gr_group_t *g, const char *member_id, int32_t generation,
                        const gr_sync_assignment_t *assignments, int32_t count, answer_t *a)
{
    gr_sync_args_t args = {.member_id = gr_str(member_id),
                           .instance_id = {NULL, GR_NULL_LEN},
                           .generation = generation,
                           .protocol_type = {NULL, GR_NULL_LEN},
                           .protocol_name = {NULL, GR_NULL_LEN},
                           .assignments = assignments,
                           .assignment_count = count};
    memset(a, 0, sizeof(*a));
    gr_group_sync(g, &f->env, &args, &a->w);
}

static void test_single_member_lifecycle(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a;
    join_new(&f, g, &a);
    /* A new group waits for the initial delay before its first generation. */
    assert_false(a.answered);
    assert_int_equal(g->state, GR_GROUP_PREPARING_REBALANCE);
    advance(&f, INITIAL_DELAY - 1);
    assert_false(a.answered);
    advance(&f, 1);
    assert_true(a.answered);
    assert_int_equal(a.error, GR_KERR_NONE);
    assert_int_equal(a.generation, 1);
    assert_string_equal(a.leader, a.member_id);
    assert_int_equal(a.members, 1);
    assert_int_equal(g->state, GR_GROUP_COMPLETING_REBALANCE);

    char id[128];
    snprintf(id, sizeof id, "%s", a.member_id);
    gr_sync_assignment_t asg = {gr_str(id), {(const uint8_t *)"p0", 2}};
    answer_t s;
    sync_member(&f, g, id, 1, &asg, 1, &s);
    assert_true(s.answered);
    assert_int_equal(s.error, GR_KERR_NONE);
    assert_string_equal(s.assignment, "p0");
    assert_int_equal(g->state, GR_GROUP_STABLE);
    assert_int_equal(f.stores, 1);

    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(id), (gr_str_t){NULL, -1}, 1),
                     GR_KERR_NONE);
    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(id), (gr_str_t){NULL, -1}, 0),
                     GR_KERR_ILLEGAL_GENERATION);
    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str("nobody"), (gr_str_t){NULL, -1}, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);

    /* No heartbeat for a session: the member is removed; the group empties. */
    advance(&f, SESSION_MS + 1);
    assert_int_equal(g->member_count, 0);
    assert_int_equal(g->state, GR_GROUP_EMPTY);
    assert_int_equal(g->generation, 2);
    gr_group_free(g, &f.env);
    assert_int_equal(f.clock.timer_count, 0);
}

static void test_second_member_rebalances(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a, b, s;
    join_new(&f, g, &a);
    advance(&f, 0);
    char ida[128];
    snprintf(ida, sizeof ida, "%s", a.member_id);
    sync_member(&f, g, ida, 1, NULL, 0, &s);
    assert_int_equal(g->state, GR_GROUP_STABLE);

    join_new(&f, g, &b);
    assert_false(b.answered);
    assert_int_equal(g->state, GR_GROUP_PREPARING_REBALANCE);
    /* The old member learns of the rebalance from its heartbeat... */
    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(ida), (gr_str_t){NULL, -1}, 1),
                     GR_KERR_REBALANCE_IN_PROGRESS);
    sync_member(&f, g, ida, 1, NULL, 0, &s);
    assert_int_equal(s.error, GR_KERR_REBALANCE_IN_PROGRESS);
    /* ...and rejoins: everyone has joined, the generation completes at once. */
    gr_join_args_t args = join_args(ida, NULL);
    join(&f, g, &args, &a);
    assert_true(a.answered && b.answered);
    assert_int_equal(a.generation, 2);
    assert_int_equal(b.generation, 2);
    assert_string_equal(a.leader, ida);
    assert_string_equal(b.leader, ida);
    assert_int_equal(a.members, 2);
    assert_int_equal(b.members, 0);

    /* The follower syncs first and waits for the leader's assignment. */
    char idb[128];
    snprintf(idb, sizeof idb, "%s", b.member_id);
    answer_t sb, sa;
    sync_member(&f, g, idb, 2, NULL, 0, &sb);
    assert_false(sb.answered);
    gr_sync_assignment_t asg[] = {{gr_str(ida), {(const uint8_t *)"A", 1}},
                                  {gr_str(idb), {(const uint8_t *)"B", 1}}};
    sync_member(&f, g, ida, 2, asg, 2, &sa);
    assert_true(sa.answered && sb.answered);
    assert_string_equal(sa.assignment, "A");
    assert_string_equal(sb.assignment, "B");

    /* b leaves: a rebalance that a alone completes. */
    assert_int_equal(gr_group_leave(g, &f.env, gr_str(idb), (gr_str_t){NULL, -1}), GR_KERR_NONE);
    assert_int_equal(g->state, GR_GROUP_PREPARING_REBALANCE);
    assert_int_equal(gr_group_leave(g, &f.env, gr_str(idb), (gr_str_t){NULL, -1}),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    join(&f, g, &args, &a);
    assert_true(a.answered);
    assert_int_equal(a.generation, 3);
    gr_group_free(g, &f.env);
}

static void test_rebalance_timeout_removes_laggard(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a, b, s;
    join_new(&f, g, &a);
    join_new(&f, g, &b);
    advance(&f, 0);
    assert_int_equal(a.generation, 1);
    char ida[128], idb[128];
    snprintf(ida, sizeof ida, "%s", a.member_id);
    snprintf(idb, sizeof idb, "%s", b.member_id);
    answer_t sb;
    sync_member(&f, g, idb, 1, NULL, 0, &sb);
    sync_member(&f, g, ida, 1, NULL, 0, &s);
    assert_true(s.answered && sb.answered);
    assert_int_equal(g->state, GR_GROUP_STABLE);

    /* a rejoins (a leader's join forces a rebalance); b never does. */
    gr_join_args_t args = join_args(ida, NULL);
    join(&f, g, &args, &a);
    assert_false(a.answered);
    /* b keeps heartbeating, so only the rebalance timeout removes it. */
    for (int i = 0; i < 5; i++) {
        advance(&f, SESSION_MS / 2);
        assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(idb), (gr_str_t){NULL, -1}, 1),
                         GR_KERR_REBALANCE_IN_PROGRESS);
    }
    advance(&f, REBALANCE_MS - 5 * (SESSION_MS / 2)); /* the join timer fires */
    assert_true(a.answered);
    assert_int_equal(a.generation, 2);
    assert_int_equal(g->member_count, 1);
    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(idb), (gr_str_t){NULL, -1}, 2),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    gr_group_free(g, &f.env);
}

static void test_static_member_rejoins_without_rebalance(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a, s;
    gr_join_args_t args = join_args(NULL, "instance-1");
    join(&f, g, &args, &a); /* static members skip MEMBER_ID_REQUIRED */
    advance(&f, 0);
    assert_true(a.answered);
    assert_int_equal(a.error, GR_KERR_NONE);
    char old_id[128];
    snprintf(old_id, sizeof old_id, "%s", a.member_id);
    gr_sync_assignment_t asg = {gr_str(old_id), {(const uint8_t *)"P", 1}};
    sync_member(&f, g, old_id, 1, &asg, 1, &s);
    assert_int_equal(g->state, GR_GROUP_STABLE);

    /* The process restarts: same instance id, no member id. */
    join(&f, g, &args, &a);
    assert_true(a.answered);
    assert_int_equal(a.error, GR_KERR_NONE);
    assert_int_equal(a.generation, 1); /* no new generation */
    assert_string_not_equal(a.member_id, old_id);
    /* Before JoinGroup v9 a rejoining leader is told the old leader id. */
    assert_string_equal(a.leader, old_id);
    assert_int_equal(g->state, GR_GROUP_STABLE);
    char new_id[128];
    snprintf(new_id, sizeof new_id, "%s", a.member_id);
    sync_member(&f, g, new_id, 1, NULL, 0, &s);
    assert_string_equal(s.assignment, "P");
    /* The old incarnation is fenced. */
    assert_int_equal(gr_group_heartbeat(g, &f.env, gr_str(old_id), gr_str("instance-1"), 1),
                     GR_KERR_FENCED_INSTANCE_ID);
    /* v9: the static leader is told it leads but must skip the assignment. */
    args.static_leader_skip = true;
    join(&f, g, &args, &a);
    assert_true(a.skip);
    assert_string_equal(a.leader, a.member_id);
    assert_int_equal(a.generation, 1);
    gr_group_free(g, &f.env);
}

static void test_join_errors(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a;
    gr_join_args_t args = join_args(NULL, NULL);
    args.session_timeout_ms = 1000;
    join(&f, g, &args, &a);
    assert_int_equal(a.error, GR_KERR_INVALID_SESSION_TIMEOUT);
    args = join_args(NULL, NULL);
    args.protocol_type = gr_str("");
    join(&f, g, &args, &a);
    assert_int_equal(a.error, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
    f.env.limits.initial_rebalance_delay_ms = 0;
    join_new(&f, g, &a);
    advance(&f, 0);
    /* Another protocol type than the group's is inconsistent. */
    args = join_args(NULL, NULL);
    args.protocol_type = gr_str("connect");
    join(&f, g, &args, &a);
    assert_int_equal(a.error, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
    /* An unknown member id is refused. */
    args = join_args("client-nobody", NULL);
    join(&f, g, &args, &a);
    assert_int_equal(a.error, GR_KERR_UNKNOWN_MEMBER_ID);
    gr_group_free(g, &f.env);
}

static void test_commit_checks(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    gr_str_t none = {NULL, GR_NULL_LEN};
    /* A simple (non-member) commit to an empty group is allowed. */
    assert_int_equal(gr_group_check_commit(g, &f.env, gr_str(""), none, -1), GR_KERR_NONE);
    answer_t a;
    join_new(&f, g, &a);
    advance(&f, 0);
    char id[128];
    snprintf(id, sizeof id, "%s", a.member_id);
    /* Awaiting the leader's sync. */
    assert_int_equal(gr_group_check_commit(g, &f.env, gr_str(id), none, 1),
                     GR_KERR_REBALANCE_IN_PROGRESS);
    answer_t s;
    sync_member(&f, g, id, 1, NULL, 0, &s);
    assert_int_equal(gr_group_check_commit(g, &f.env, gr_str(id), none, 1), GR_KERR_NONE);
    assert_int_equal(gr_group_check_commit(g, &f.env, gr_str(id), none, 7),
                     GR_KERR_ILLEGAL_GENERATION);
    /* Only members commit for a group that has some. */
    assert_int_equal(gr_group_check_commit(g, &f.env, gr_str(""), none, -1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    gr_group_free(g, &f.env);
}

/* TxnOffsetCommit's checks: members are checked only when named, and a rebalance does not refuse.
 */
static void test_txn_commit_checks(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    gr_str_t none = {NULL, GR_NULL_LEN};
    assert_int_equal(gr_group_check_txn_commit(g, gr_str(""), none, -1), GR_KERR_NONE);
    /* Kafka 3.8: an Empty group takes any commit without generation, member or not. */
    assert_int_equal(gr_group_check_txn_commit(g, gr_str("client-x"), none, -1), GR_KERR_NONE);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str("client-x"), none, 0),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    answer_t a;
    gr_join_args_t args = join_args(NULL, "instance-1");
    join(&f, g, &args, &a);
    advance(&f, 0);
    assert_int_equal(a.error, GR_KERR_NONE);
    char id[128];
    snprintf(id, sizeof id, "%s", a.member_id);
    /* CompletingRebalance: OffsetCommit would get REBALANCE_IN_PROGRESS. */
    assert_int_equal(g->state, GR_GROUP_COMPLETING_REBALANCE);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str(id), gr_str("instance-1"), 1),
                     GR_KERR_NONE);
    answer_t sync;
    sync_member(&f, g, id, 1, NULL, 0, &sync);
    int64_t deadline = g->members->session_timer.deadline_ms;
    /* A producer naming no member commits into a group with members (v0-2 clients). */
    assert_int_equal(gr_group_check_txn_commit(g, gr_str(""), none, -1), GR_KERR_NONE);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str(id), none, 1), GR_KERR_NONE);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str(id), none, 2), GR_KERR_ILLEGAL_GENERATION);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str("client-x"), none, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    assert_int_equal(gr_group_check_txn_commit(g, gr_str("client-x"), gr_str("instance-1"), 1),
                     GR_KERR_FENCED_INSTANCE_ID);
    /* Not a heartbeat: the session timer is left alone. */
    assert_int_equal(g->members->session_timer.deadline_ms, deadline);
    gr_group_free(g, &f.env);
}

static gr_group_offset_value_t offset_value(int64_t offset, int64_t log_offset)
{
    return (gr_group_offset_value_t){.offset = offset,
                                     .leader_epoch = -1,
                                     .metadata = gr_str("m"),
                                     .commit_timestamp = 1,
                                     .expire_timestamp = -1,
                                     .log_offset = log_offset};
}

static int64_t committed_offset(gr_group_t *g, const char *topic, int32_t partition)
{
    gr_group_offset_t *o = gr_group_offset_find(g, gr_str(topic), partition);
    return o ? o->offset : -1;
}

/* Pending transactional offsets: invisible until committed; the later record in the log wins. */
static void test_txn_offsets(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    gr_group_offset_value_t v = offset_value(5, 10);
    assert_int_equal(gr_group_offset_set(g, gr_str("t"), 0, &v), 0);
    /* Producer 7 commits t-0 twice in one transaction and t-1; producer 8 commits t-0. */
    v = offset_value(20, 11);
    assert_int_equal(gr_group_txn_offset_set(g, 7, gr_str("t"), 0, &v), 0);
    v = offset_value(21, 12);
    assert_int_equal(gr_group_txn_offset_set(g, 7, gr_str("t"), 0, &v), 0);
    v = offset_value(30, 12);
    assert_int_equal(gr_group_txn_offset_set(g, 7, gr_str("t"), 1, &v), 0);
    v = offset_value(40, 13);
    assert_int_equal(gr_group_txn_offset_set(g, 8, gr_str("t"), 0, &v), 0);
    assert_int_equal(g->txn_offset_count, 3);
    assert_true(gr_group_txn_offset_pending(g, gr_str("t"), 0));
    assert_true(gr_group_txn_offset_pending(g, gr_str("t"), 1));
    assert_false(gr_group_txn_offset_pending(g, gr_str("t"), 2));
    assert_true(gr_group_txn_offset_has_producer(g, 8));
    assert_int_equal(committed_offset(g, "t", 0), 5);
    assert_int_equal(committed_offset(g, "t", 1), -1);

    /* A plain commit of t-1 after producer 7's record (log offset 14). */
    v = offset_value(31, 14);
    assert_int_equal(gr_group_offset_set(g, gr_str("t"), 1, &v), 0);
    assert_int_equal(gr_group_txn_offset_complete(g, 7, true), 0);
    assert_int_equal(committed_offset(g, "t", 0), 21);
    assert_int_equal(committed_offset(g, "t", 1), 31); /* the later plain commit stays */
    assert_false(gr_group_txn_offset_has_producer(g, 7));
    assert_true(gr_group_txn_offset_pending(g, gr_str("t"), 0)); /* producer 8's */

    assert_int_equal(gr_group_txn_offset_complete(g, 8, false), 0);
    assert_int_equal(committed_offset(g, "t", 0), 21);
    assert_int_equal(g->txn_offset_count, 0);

    /* drop: one partition, or every partition of a topic. */
    v = offset_value(50, 15);
    assert_int_equal(gr_group_txn_offset_set(g, 9, gr_str("t"), 0, &v), 0);
    assert_int_equal(gr_group_txn_offset_set(g, 9, gr_str("t"), 1, &v), 0);
    assert_int_equal(gr_group_txn_offset_set(g, 9, gr_str("u"), 0, &v), 0);
    gr_group_txn_offset_drop(g, gr_str("t"), 1);
    assert_int_equal(g->txn_offset_count, 2);
    gr_group_txn_offset_drop(g, gr_str("t"), -1);
    assert_int_equal(g->txn_offset_count, 1);
    assert_true(gr_group_txn_offset_remove(g, 9, gr_str("u"), 0));
    assert_false(gr_group_txn_offset_remove(g, 9, gr_str("u"), 0));
    /* Freed with the group (the sanitizer build checks nothing leaks). */
    assert_int_equal(gr_group_txn_offset_set(g, 9, gr_str("u"), 0, &v), 0);
    gr_group_free(g, &f.env);
}

/* Commit metadata is a Kafka string: every byte kept, a NUL included, committed or pending. */
static void test_offset_metadata_bytes(void **state)
{
    (void)state;
    static const char meta[] = "Hello\0world!";
    const gr_str_t m = {meta, (int32_t)sizeof meta - 1};
    fake_t f;
    fake_init(&f);
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    gr_group_offset_value_t v = offset_value(5, 10);
    v.metadata = m;
    assert_int_equal(gr_group_offset_set(g, gr_str("t"), 0, &v), 0);
    gr_str_t got = gr_group_offset_metadata(gr_group_offset_find(g, gr_str("t"), 0));
    assert_int_equal(got.len, 12);
    assert_memory_equal(got.ptr, meta, 12);

    v = offset_value(6, 11);
    v.metadata = m;
    assert_int_equal(gr_group_txn_offset_set(g, 7, gr_str("t"), 1, &v), 0);
    assert_int_equal(gr_group_txn_offset_complete(g, 7, true), 0);
    got = gr_group_offset_metadata(gr_group_offset_find(g, gr_str("t"), 1));
    assert_int_equal(got.len, 12);
    assert_memory_equal(got.ptr, meta, 12);

    /* Null is stored as "". */
    v = offset_value(7, 12);
    v.metadata = (gr_str_t){NULL, GR_NULL_LEN};
    assert_int_equal(gr_group_offset_set(g, gr_str("t"), 0, &v), 0);
    got = gr_group_offset_metadata(gr_group_offset_find(g, gr_str("t"), 0));
    assert_int_equal(got.len, 0);
    assert_non_null(got.ptr);
    gr_group_free(g, &f.env);
}

static void test_store_failure_propagates(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a, s;
    join_new(&f, g, &a);
    advance(&f, 0);
    char id[128];
    snprintf(id, sizeof id, "%s", a.member_id);
    f.store_error = GR_KERR_NOT_COORDINATOR;
    sync_member(&f, g, id, 1, NULL, 0, &s);
    assert_true(s.answered);
    assert_int_equal(s.error, GR_KERR_NOT_COORDINATOR);
    assert_int_equal(g->state, GR_GROUP_PREPARING_REBALANCE);
    gr_group_free(g, &f.env);
}

static void test_protocol_selection_and_states(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    static const gr_join_protocol_t both[] = {{{"range", 5}, {(const uint8_t *)"m", 1}},
                                              {{"roundrobin", 10}, {(const uint8_t *)"m", 1}}};
    static const gr_join_protocol_t rr[] = {{{"roundrobin", 10}, {(const uint8_t *)"m", 1}}};
    gr_join_args_t args = join_args(NULL, NULL);
    args.require_known_member_id = false;
    args.protocols = both;
    args.protocol_count = 2;
    answer_t a, b;
    join(&f, g, &args, &a);
    args.protocols = rr;
    args.protocol_count = 1;
    join(&f, g, &args, &b);
    advance(&f, 0);
    assert_true(a.answered && b.answered);
    assert_string_equal(g->protocol_name, "roundrobin");
    assert_string_equal(gr_group_state_name(g->state), "CompletingRebalance");
    assert_int_equal(gr_group_state_parse(gr_str("stable")), GR_GROUP_STABLE);
    assert_int_equal(gr_group_state_parse(gr_str("bogus")), -1);
    gr_group_free(g, &f.env);
}

/* Losing the partition answers waiting joins and syncs NOT_COORDINATOR and stops every timer. */
static void test_unload_answers_not_coordinator(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    f.env.limits.initial_rebalance_delay_ms = 0;
    gr_group_t *g = gr_group_new("g", 1, 0, f.clock.now);
    answer_t a, b, sa;
    join_new(&f, g, &a);
    advance(&f, 0);
    char ida[128];
    snprintf(ida, sizeof ida, "%s", a.member_id);
    gr_group_offset_value_t v = {.offset = 42,
                                 .leader_epoch = -1,
                                 .metadata = gr_str(""),
                                 .commit_timestamp = f.clock.now,
                                 .expire_timestamp = -1,
                                 .log_offset = -1};
    assert_int_equal(gr_group_offset_set(g, gr_str("t"), 0, &v), 0);
    sync_member(&f, g, ida, 1, NULL, 0, &sa);
    assert_true(sa.answered);
    join_new(&f, g, &b); /* b waits in JoinGroup: a has not rejoined yet */
    assert_false(b.answered);
    assert_true(f.clock.timer_count > 0);

    gr_group_unload(g, &f.env);
    assert_true(b.answered);
    assert_int_equal(b.error, GR_KERR_NOT_COORDINATOR);
    assert_int_equal(g->state, GR_GROUP_DEAD);
    assert_int_equal(g->member_count, 0);
    assert_int_equal(f.clock.timer_count, 0);
    /* Offsets stay in memory until the coordinator frees the group (they are in the log). */
    assert_non_null(gr_group_offset_find(g, gr_str("t"), 0));
    gr_group_free(g, &f.env);

    /* A follower parked in SyncGroup is answered too. */
    g = gr_group_new("g", 1, 0, f.clock.now);
    join_new(&f, g, &a);
    join_new(&f, g, &b);
    advance(&f, 0);
    assert_true(a.answered && b.answered);
    const char *follower = strcmp(a.leader, a.member_id) == 0 ? b.member_id : a.member_id;
    answer_t sf;
    sync_member(&f, g, follower, 1, NULL, 0, &sf);
    assert_false(sf.answered);
    gr_group_unload(g, &f.env);
    assert_true(sf.answered);
    assert_int_equal(sf.error, GR_KERR_NOT_COORDINATOR);
    assert_int_equal(f.clock.timer_count, 0);
    gr_group_free(g, &f.env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_member_lifecycle),
        cmocka_unit_test(test_second_member_rebalances),
        cmocka_unit_test(test_rebalance_timeout_removes_laggard),
        cmocka_unit_test(test_static_member_rejoins_without_rebalance),
        cmocka_unit_test(test_join_errors),
        cmocka_unit_test(test_commit_checks),
        cmocka_unit_test(test_txn_commit_checks),
        cmocka_unit_test(test_txn_offsets),
        cmocka_unit_test(test_offset_metadata_bytes),
        cmocka_unit_test(test_store_failure_propagates),
        cmocka_unit_test(test_protocol_selection_and_states),
        cmocka_unit_test(test_unload_answers_not_coordinator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
