/* SPDX-License-Identifier: Apache-2.0 */
/* The fetch session cache (handlers/fetch_sessions.h): ids, epochs,
 * partitions joining, updated and forgotten, and Kafka's eviction rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "handlers/fetch_sessions.h"

#define EVICTION_MS 1000

static gr_uuid_t topic(uint8_t n)
{
    gr_uuid_t id = {{0}};
    id.b[15] = n;
    return id;
}

static const gr_uuid_t no_id;

/* A session of size partitions of topic 1 (ids), touched at now. */
static gr_fetch_session_t *make(gr_fetch_sessions_t *c, bool privileged, int32_t size, int64_t now)
{
    gr_fetch_session_t *s = gr_fetch_sessions_create(c, privileged, true, size, now);
    if (!s)
        return NULL;
    for (int32_t i = 0; i < size; i++)
        assert_non_null(gr_fetch_session_upsert(s, topic(1), NULL, 0, i));
    gr_fetch_session_settle(s);
    gr_fetch_sessions_touch(c, s, now);
    return s;
}

static void test_ids_and_epochs(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(10, EVICTION_MS);
    gr_fetch_session_t *a = make(c, false, 1, 0), *b = make(c, false, 1, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a->id > 0 && b->id > 0 && a->id != b->id);
    assert_int_equal(a->epoch, 1);
    assert_ptr_equal(gr_fetch_sessions_find(c, a->id), a);
    assert_ptr_equal(gr_fetch_sessions_find(c, b->id), b);
    assert_int_equal(gr_fetch_sessions_count(c), 2);
    assert_int_equal(gr_fetch_sessions_partitions(c), 2);
    int32_t id = a->id;
    assert_true(gr_fetch_sessions_remove(c, id));
    assert_null(gr_fetch_sessions_find(c, id));
    assert_false(gr_fetch_sessions_remove(c, id));
    assert_int_equal(gr_fetch_session_next_epoch(1), 2);
    assert_int_equal(gr_fetch_session_next_epoch(INT32_MAX), 1);
    gr_fetch_sessions_free(c);
}

static void test_no_slots(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(0, EVICTION_MS);
    assert_null(gr_fetch_sessions_create(c, true, true, 100, 0));
    gr_fetch_sessions_free(c);
}

static void test_partitions_by_id(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(1, EVICTION_MS);
    gr_fetch_session_t *s = gr_fetch_sessions_create(c, false, true, 0, 0);
    assert_non_null(s);
    gr_fetch_session_partition_t *p = gr_fetch_session_upsert(s, topic(2), NULL, 0, 3);
    p->fetch_offset = 7;
    assert_int_equal(p->high_watermark, -1); /* unknown: the first response sends it */
    gr_fetch_session_upsert(s, topic(1), NULL, 0, 0)->fetch_offset = 1;
    gr_fetch_session_upsert(s, topic(2), NULL, 0, 3)->fetch_offset = 9; /* later wins */
    gr_fetch_session_settle(s);
    assert_int_equal(s->count, 2);
    assert_memory_equal(s->parts[0].topic_id.b, topic(1).b, 16); /* sorted */
    assert_int_equal(gr_fetch_session_find(s, topic(2), NULL, 0, 3)->fetch_offset, 9);
    /* An existing partition is updated in place. */
    gr_fetch_session_upsert(s, topic(1), NULL, 0, 0)->fetch_offset = 5;
    gr_fetch_session_settle(s);
    assert_int_equal(s->count, 2);
    assert_int_equal(gr_fetch_session_find(s, topic(1), NULL, 0, 0)->fetch_offset, 5);
    gr_fetch_session_forget(s, topic(2), NULL, 0, 3);
    gr_fetch_session_forget(s, topic(9), NULL, 0, 0); /* not there: nothing */
    gr_fetch_session_settle(s);
    assert_int_equal(s->count, 1);
    assert_null(gr_fetch_session_find(s, topic(2), NULL, 0, 3));
    gr_fetch_sessions_free(c);
}

static void test_partitions_by_name(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(1, EVICTION_MS);
    gr_fetch_session_t *s = gr_fetch_sessions_create(c, false, false, 0, 0);
    /* Names come from the request unterminated: only len bytes count. */
    gr_fetch_session_upsert(s, no_id, "beta-xyz", 4, 0);
    gr_fetch_session_upsert(s, no_id, "alpha", 5, 1);
    gr_fetch_session_upsert(s, no_id, "alpha", 5, 0);
    gr_fetch_session_upsert(s, no_id, "alphabet", 8, 0);
    gr_fetch_session_settle(s);
    assert_int_equal(s->count, 4);
    assert_string_equal(s->parts[0].topic, "alpha");
    assert_int_equal(s->parts[0].partition, 0);
    assert_string_equal(s->parts[2].topic, "alphabet");
    assert_string_equal(s->parts[3].topic, "beta");
    assert_non_null(gr_fetch_session_find(s, no_id, "beta", 4, 0));
    assert_null(gr_fetch_session_find(s, no_id, "bet", 3, 0));
    gr_fetch_session_forget(s, no_id, "alpha", 5, 1);
    gr_fetch_session_settle(s);
    assert_int_equal(s->count, 3);
    gr_fetch_sessions_free(c); /* frees the names (ASan) */
}

/* Full, nothing stale: a new session evicts a smaller one, never an equal or bigger one. */
static void test_evicts_smaller(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(2, EVICTION_MS);
    gr_fetch_session_t *small = make(c, false, 2, 0);
    gr_fetch_session_t *big = make(c, false, 5, 0);
    int32_t small_id = small->id, big_id = big->id;
    /* Too young to be evicted by an unprivileged session. */
    assert_null(gr_fetch_sessions_create(c, false, true, 3, 10));
    /* Old enough (as of the last touch) to be evicted by anyone. */
    gr_fetch_sessions_touch(c, small, EVICTION_MS + 1);
    gr_fetch_sessions_touch(c, big, EVICTION_MS + 1);
    assert_null(gr_fetch_sessions_create(c, false, true, 1, EVICTION_MS + 2));
    /* Equal size: Kafka's new key (id 0) sorts first, so it is worth less. */
    assert_null(gr_fetch_sessions_create(c, false, true, 2, EVICTION_MS + 2));
    assert_non_null(gr_fetch_sessions_create(c, false, true, 3, EVICTION_MS + 2));
    assert_null(gr_fetch_sessions_find(c, small_id));
    assert_non_null(gr_fetch_sessions_find(c, big_id));
    assert_int_equal(gr_fetch_sessions_evictions(c), 1);
    gr_fetch_sessions_free(c);
}

/* A follower's session evicts a consumer's, however big; not another follower's. */
static void test_privileged(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(2, EVICTION_MS);
    gr_fetch_session_t *consumer = make(c, false, 100, 0);
    gr_fetch_session_t *follower = make(c, true, 1, 0);
    int32_t consumer_id = consumer->id, follower_id = follower->id;
    assert_null(gr_fetch_sessions_create(c, false, true, 1000, 1)); /* consumers: too young */
    gr_fetch_session_t *s = gr_fetch_sessions_create(c, true, true, 1, 1);
    assert_non_null(s);
    assert_null(gr_fetch_sessions_find(c, consumer_id));
    assert_non_null(gr_fetch_sessions_find(c, follower_id));
    /* Now two young followers: another follower cannot take either's place. */
    assert_null(gr_fetch_sessions_create(c, true, true, 1000, 2));
    gr_fetch_sessions_free(c);
}

/* Idle longer than the eviction time: the least recently used goes, whatever its worth. */
static void test_evicts_stale(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(2, EVICTION_MS);
    gr_fetch_session_t *idle = make(c, true, 100, 0);
    gr_fetch_session_t *busy = make(c, true, 100, 0);
    int32_t idle_id = idle->id, busy_id = busy->id;
    gr_fetch_sessions_touch(c, busy, EVICTION_MS);
    assert_non_null(gr_fetch_sessions_create(c, false, true, 1, EVICTION_MS + 1));
    assert_null(gr_fetch_sessions_find(c, idle_id));
    assert_non_null(gr_fetch_sessions_find(c, busy_id));
    gr_fetch_sessions_free(c);
}

/* The partition at fetch-order position k. */
static int32_t order_at(const gr_fetch_session_t *s, int32_t k)
{
    return s->parts[s->order[k]].partition;
}

/*
 * Kafka's fetch order: the request's order for a new session, new
 * partitions last, updated ones in place, forgotten ones gone, and those
 * requeued (they returned records) moved to the back in their order.
 */
static void test_fetch_order(void **state)
{
    (void)state;
    gr_fetch_sessions_t *c = gr_fetch_sessions_new(1, EVICTION_MS);
    gr_fetch_session_t *s = gr_fetch_sessions_create(c, false, true, 0, 0);
    const int32_t first[] = {3, 1, 2, 0};
    for (int i = 0; i < 4; i++)
        gr_fetch_session_upsert(s, topic(1), NULL, 0, first[i]);
    assert_int_equal(gr_fetch_session_settle(s), 0);
    for (int k = 0; k < 4; k++)
        assert_int_equal(order_at(s, k), first[k]);
    assert_int_equal(s->parts[0].partition, 0); /* still sorted by key for lookups */

    bool to_end[4] = {true, false, true, false}; /* 3 and 2 returned records */
    gr_fetch_session_requeue(s, to_end);
    const int32_t requeued[] = {1, 0, 3, 2};
    for (int k = 0; k < 4; k++)
        assert_int_equal(order_at(s, k), requeued[k]);

    gr_fetch_session_upsert(s, topic(1), NULL, 0, 5); /* joins last */
    gr_fetch_session_upsert(s, topic(1), NULL, 0, 0); /* updated in place */
    gr_fetch_session_forget(s, topic(1), NULL, 0, 3);
    assert_int_equal(gr_fetch_session_settle(s), 0);
    const int32_t after[] = {1, 0, 2, 5};
    assert_int_equal(s->count, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(order_at(s, k), after[k]);
    for (int k = 0; k < 4; k++)
        assert_int_equal(s->parts[s->order[k]].rank, k);
    assert_true(s->parts[s->order[0]].run_start);
    assert_false(s->parts[s->order[3]].run_start);

    /* Another topic joins last: a run of its own; then topic 1's partition 1
     * moves behind it, a third run (a topic listed twice, as Kafka's responses do). */
    gr_fetch_session_upsert(s, topic(2), NULL, 0, 0);
    assert_int_equal(gr_fetch_session_settle(s), 0);
    bool one_to_end[5] = {true, false, false, false, false};
    gr_fetch_session_requeue(s, one_to_end);
    const bool runs[] = {true, false, false, true, true};
    for (int k = 0; k < 5; k++)
        assert_int_equal(s->parts[s->order[k]].run_start, runs[k]);
    gr_fetch_sessions_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_and_epochs),   cmocka_unit_test(test_no_slots),
        cmocka_unit_test(test_partitions_by_id), cmocka_unit_test(test_partitions_by_name),
        cmocka_unit_test(test_evicts_smaller),   cmocka_unit_test(test_privileged),
        cmocka_unit_test(test_evicts_stale),     cmocka_unit_test(test_fetch_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
