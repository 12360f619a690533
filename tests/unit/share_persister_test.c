/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The persister (share/share_persister.h) against a real single-node
 * broker: its calls go over the broker's own listener to its share
 * coordinator, __share_group_state created on first use; initialize,
 * write, read, read summary and delete answer as the coordinator merged
 * them; a cancelled call never calls back; after a restart the replayed
 * state reads back the same; freeing the persister ends pending calls
 * with COORDINATOR_NOT_AVAILABLE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broker_fixture.h"
#include "core/context.h"
#include "log/log.h"
#include "loop_wait.h"
#include "share/share_persister.h"
#include "topic_wait.h"

#define TOPIC "share-persisted"

static const char *const overrides[] = {
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "share.coordinator.state.topic.num.partitions=2",
    "share.coordinator.snapshot.update.records.per.snapshot=2",
    "share.coordinator.state.topic.prune.interval.ms=20",
};
#define OVERRIDE_COUNT ((int)(sizeof overrides / sizeof overrides[0]))

/* One call's outcome. */
typedef struct outcome {
    bool done;
    gr_kerr_t err;
    gr_share_state_t state; /* a read's, batches copied */
    gr_share_summary_t summary;
} outcome_t;

static void on_done(void *opaque, gr_kerr_t err)
{
    outcome_t *o = opaque;
    o->done = true;
    o->err = err;
}

static void on_read(void *opaque, gr_kerr_t err, const gr_share_state_t *state)
{
    outcome_t *o = opaque;
    o->done = true;
    o->err = err;
    if (err)
        return;
    assert_non_null(state);
    o->state = *state;
    o->state.batches = calloc((size_t)state->batch_count + 1, sizeof *state->batches);
    assert_non_null(o->state.batches);
    if (state->batch_count > 0)
        memcpy(o->state.batches, state->batches,
               sizeof *state->batches * (size_t)state->batch_count);
}

static void on_summary(void *opaque, gr_kerr_t err, const gr_share_summary_t *summary)
{
    outcome_t *o = opaque;
    o->done = true;
    o->err = err;
    if (!err)
        o->summary = *summary;
}

static gr_share_key_t key_for(gr_broker_t *b, const char *group)
{
    gr_topic_t *t = gr_test_hosted_topic(b, TOPIC);
    assert_non_null(t);
    return (gr_share_key_t){.group_id = group, .topic_id = t->id, .partition = 0};
}

static void wait_outcome(gr_test_broker_t *tb, outcome_t *o, const char *what)
{
    gr_test_wait_flag(tb->loop, &o->done, what);
}

static void read_state(gr_test_broker_t *tb, const gr_share_key_t *key, int32_t leader_epoch,
                       outcome_t *o)
{
    memset(o, 0, sizeof *o);
    assert_int_equal(gr_share_persister_read(tb->b->share_persister, key, leader_epoch, on_read, o),
                     0);
    wait_outcome(tb, o, "read");
}

static void assert_merged(const outcome_t *o)
{
    assert_int_equal(o->err, GR_KERR_NONE);
    assert_int_equal(o->state.state_epoch, 1);
    assert_int_equal(o->state.start_offset, 5);
    assert_int_equal(o->state.batch_count, 2);
    assert_int_equal(o->state.batches[0].first_offset, 5);
    assert_int_equal(o->state.batches[0].last_offset, 7);
    assert_int_equal(o->state.batches[0].state, GR_SHARE_RECORD_ACKNOWLEDGED);
    assert_int_equal(o->state.batches[1].first_offset, 8);
    assert_int_equal(o->state.batches[1].last_offset, 9);
    assert_int_equal(o->state.batches[1].state, GR_SHARE_RECORD_AVAILABLE);
    assert_int_equal(o->state.batches[1].delivery_count, 2);
}

/* Whether some partition of __share_group_state starts above 0. */
static bool pruned(void *arg)
{
    gr_broker_t *b = arg;
    gr_topic_t *t = gr_topics_find(b->topics, GR_SHARE_STATE_TOPIC, strlen(GR_SHARE_STATE_TOPIC));
    for (int32_t i = 0; t && i < t->partition_count; i++)
        if (t->partitions[i].log && gr_log_start_offset(t->partitions[i].log) > 0)
            return true;
    return false;
}

static void persister_round_trip(void **state)
{
    gr_test_broker_t *tb = *state;
    assert_int_equal(gr_test_broker_start(tb, overrides, OVERRIDE_COUNT), 0);
    assert_non_null(gr_test_create_topic(tb->loop, tb->b, TOPIC, 1, NULL, 0));
    gr_share_key_t key = key_for(tb->b, "persisted-group");
    gr_share_persister_t *p = tb->b->share_persister;

    outcome_t o;
    read_state(tb, &key, 0, &o);
    assert_int_equal(o.err, GR_KERR_NONE);
    assert_int_equal(o.state.state_epoch, GR_SHARE_STATE_EPOCH_NONE);
    assert_int_equal(o.state.start_offset, GR_SHARE_START_OFFSET_UNINITIALIZED);
    free(o.state.batches);

    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_initialize(p, &key, 1, 0, on_done, &o), 0);
    assert_false(o.done); /* never from inside the call */
    wait_outcome(tb, &o, "initialize");
    assert_int_equal(o.err, GR_KERR_NONE);

    gr_share_state_batch_t first[] = {{0, 9, GR_SHARE_RECORD_AVAILABLE, 1}};
    gr_share_state_batch_t second[] = {{0, 7, GR_SHARE_RECORD_ACKNOWLEDGED, 1},
                                       {8, 9, GR_SHARE_RECORD_AVAILABLE, 2}};
    gr_share_state_t w = {
        .state_epoch = 1, .leader_epoch = 3, .start_offset = 0, .batches = first, .batch_count = 1};
    for (int i = 0; i < 4; i++) { /* crosses a snapshot (every 2 updates) */
        if (i == 3) {
            w.batches = second;
            w.batch_count = 2;
            w.start_offset = 5;
        }
        memset(&o, 0, sizeof o);
        assert_int_equal(gr_share_persister_write(p, &key, &w, 4, on_done, &o), 0);
        wait_outcome(tb, &o, "write");
        assert_int_equal(o.err, GR_KERR_NONE);
    }
    read_state(tb, &key, 3, &o);
    assert_merged(&o);
    free(o.state.batches);

    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_read_summary(p, &key, -1, on_summary, &o), 0);
    wait_outcome(tb, &o, "summary");
    assert_int_equal(o.err, GR_KERR_NONE);
    assert_int_equal(o.summary.start_offset, 5);
    assert_int_equal(o.summary.leader_epoch, 3);
    assert_int_equal(o.summary.delivery_complete_count, 4);

    /* Fencing comes back as the call's result, not retried. */
    read_state(tb, &key, 2, &o);
    assert_int_equal(o.err, GR_KERR_FENCED_LEADER_EPOCH);
    w.state_epoch = 0;
    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_write(p, &key, &w, -1, on_done, &o), 0);
    wait_outcome(tb, &o, "stale write");
    assert_int_equal(o.err, GR_KERR_FENCED_STATE_EPOCH);

    /* A cancelled call never calls back; the next one does. */
    outcome_t cancelled = {0};
    assert_int_equal(gr_share_persister_read(p, &key, 3, on_read, &cancelled), 0);
    assert_int_equal(gr_share_persister_cancel(p, &cancelled), 1);
    read_state(tb, &key, 3, &o);
    assert_false(cancelled.done);
    free(o.state.batches);

    /* A second group's state, deleted: reads as never written. */
    gr_share_key_t other = key_for(tb->b, "deleted-group");
    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_initialize(p, &other, 1, 3, on_done, &o), 0);
    wait_outcome(tb, &o, "initialize other");
    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_delete(p, &other, on_done, &o), 0);
    wait_outcome(tb, &o, "delete");
    assert_int_equal(o.err, GR_KERR_NONE);
    read_state(tb, &other, 0, &o);
    assert_int_equal(o.state.start_offset, GR_SHARE_START_OFFSET_UNINITIALIZED);
    free(o.state.batches);

    /* Pruning moves the log start of the key's partition past the old snapshots. */
    gr_test_wait(tb->loop, pruned, tb->b, "__share_group_state pruned");

    /* Restart: the coordinator replays __share_group_state (what pruning left). */
    gr_test_broker_stop(tb);
    assert_int_equal(gr_test_broker_start(tb, overrides, OVERRIDE_COUNT), 0);
    key = key_for(tb->b, "persisted-group");
    read_state(tb, &key, 3, &o);
    assert_merged(&o);
    free(o.state.batches);
    other = key_for(tb->b, "deleted-group");
    read_state(tb, &other, 0, &o);
    assert_int_equal(o.state.state_epoch, GR_SHARE_STATE_EPOCH_NONE);
    free(o.state.batches);

    /* Freeing the persister ends what is pending. */
    memset(&o, 0, sizeof o);
    assert_int_equal(gr_share_persister_read(tb->b->share_persister, &key, 3, on_read, &o), 0);
    gr_share_persister_free(tb->b->share_persister);
    tb->b->share_persister = NULL;
    assert_true(o.done);
    assert_int_equal(o.err, GR_KERR_COORDINATOR_NOT_AVAILABLE);
}

static int setup(void **state)
{
    return gr_test_broker_new(state, "share-persister");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(persister_round_trip, setup, gr_test_broker_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
