/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The coordinator runtime (src/coordinator/): the slots' transitions by
 * epoch, a key's partition (Java's hash, Kafka's abs), a record's version
 * framing, the key table, and, on a real single-node broker with a test
 * topic as T and a recording handler as H: the loader replaying a
 * partition one batch per loop iteration (load slice of one byte) with each
 * record's origin and each marker, check and locate following the state,
 * resignation unloading (also mid-replay, the next election starting again
 * from the log start), stale elections ignored, the reload-on-new-epoch
 * policy, and nothing after fini.
 *
 * Nothing sleeps: the loop runs one iteration at a time, or until a
 * condition holds under a deadline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>

#include <cmocka.h>
#include <ev.h>

#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "coordinator/hash.h"
#include "coordinator/keys.h"
#include "coordinator/record.h"
#include "coordinator/runtime.h"
#include "coordinator/slots.h"
#include "log/log_dir.h"
#include "metadata/topics.h"
#include "protocol/control_batch.h"
#include "protocol/records.h"
#include "protocol/writer.h"

#define TOPIC         "runtime-state"
#define PARTITIONS    2
#define PRODUCER      7
#define MAX_RECORDS   16
#define MAX_KEY_BYTES 16

/* ---- the slots ------------------------------------------------------------------- */

static void test_slots_transitions(void **state)
{
    (void)state;
    gr_coordinator_slots_t s;
    gr_coordinator_slots_init(&s, "__consumer_offsets", "group", NULL);
    bool moved = false;
    gr_coordinator_partition_t *p = gr_coordinator_slots_elect(&s, 3, 5, &moved);
    assert_non_null(p);
    assert_true(moved);
    assert_int_equal(s.count, 4); /* grown to hold partition 3 */
    assert_int_equal(gr_coordinator_slots_state(&s, 0), GR_COORDINATOR_NOT_OURS);
    assert_int_equal(p->state, GR_COORDINATOR_NOT_OURS); /* the runtime makes it LOADING */
    p->state = GR_COORDINATOR_LOADING;
    assert_true(gr_coordinator_slots_loading(&s));
    assert_int_equal(gr_coordinator_slots_next_loading(&s), 3);
    assert_int_equal(gr_coordinator_slots_epoch(&s, 3), 5);
    assert_int_equal(gr_coordinator_slots_epoch(&s, 7), GR_COORDINATOR_ANY_EPOCH);

    /* The same epoch again: not a move, the state kept. An older one: stale. */
    assert_non_null(gr_coordinator_slots_elect(&s, 3, 5, &moved));
    assert_false(moved);
    assert_int_equal(gr_coordinator_slots_state(&s, 3), GR_COORDINATOR_LOADING);
    assert_null(gr_coordinator_slots_elect(&s, 3, 4, &moved));

    gr_coordinator_load_t was;
    assert_false(gr_coordinator_slots_resign(&s, 3, 4, &was)); /* stale */
    assert_true(gr_coordinator_slots_resign(&s, 3, 5, &was));
    assert_int_equal(was, GR_COORDINATOR_LOADING);
    assert_int_equal(gr_coordinator_slots_state(&s, 3), GR_COORDINATOR_RESIGNED);
    assert_false(gr_coordinator_slots_loading(&s));
    assert_int_equal(gr_coordinator_slots_next_loading(&s), -1);
    /* Resigned at 5 last: an election at 5 came before it. */
    assert_null(gr_coordinator_slots_elect(&s, 3, 5, &moved));
    p = gr_coordinator_slots_elect(&s, 3, 6, &moved);
    assert_non_null(p);
    assert_int_equal(p->state, GR_COORDINATOR_NOT_OURS);
    /* A resignation without an epoch (StopReplica) always applies and forgets the epoch. */
    p->state = GR_COORDINATOR_LOADED;
    assert_true(gr_coordinator_slots_resign(&s, 3, GR_COORDINATOR_ANY_EPOCH, &was));
    assert_int_equal(was, GR_COORDINATOR_LOADED);
    assert_int_equal(s.items[3].epoch, GR_COORDINATOR_ANY_EPOCH);
    assert_int_equal(s.items[3].state, GR_COORDINATOR_NOT_OURS);
    assert_non_null(gr_coordinator_slots_elect(&s, 3, 0, &moved)); /* any epoch now */
    assert_int_equal(gr_coordinator_slots_state(&s, 99), GR_COORDINATOR_NOT_OURS);
    gr_coordinator_slots_fini(&s);
}

static void test_replaced_topic(void **state)
{
    (void)state;
    gr_coordinator_slots_t s;
    gr_coordinator_slots_init(&s, "__transaction_state", "txn", NULL);
    gr_uuid_t first = {{1}}, second = {{2}};
    assert_false(gr_coordinator_slots_replaced(&s, &first)); /* the first seen */
    assert_false(gr_coordinator_slots_replaced(&s, &first));
    assert_true(gr_coordinator_slots_replaced(&s, &second)); /* deleted and created again */
    assert_false(gr_coordinator_slots_replaced(&s, &second));
    gr_coordinator_slots_fini(&s);
}

/* ---- a key's partition ------------------------------------------------------------ */

static void test_partition_for(void **state)
{
    (void)state;
    assert_int_equal(gr_java_string_hash("my-group", 8), -1906497762);
    assert_int_equal(gr_coordinator_partition_for("my-group", 8, 50), 12);
    assert_int_equal(gr_java_string_hash("", 0), 0);
    assert_int_equal(gr_java_string_hash("consumer-group-1", 16), 147483020);
    assert_int_equal(gr_java_string_hash("gr\xc3\xbc\xc3\x9f"
                                         "e",
                                         7),
                     98768023);
    const char *japanese = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x82\xb0\xe3\x83\xab\xe3\x83"
                           "\xbc\xe3\x83\x97";
    assert_int_equal(gr_java_string_hash(japanese, strlen(japanese)), -305235731);
    assert_int_equal(gr_coordinator_partition_for(japanese, strlen(japanese), 50), 31);
    /* Outside the BMP: a surrogate pair, as Java's UTF-16 strings hold it. */
    const char *emoji = "\xf0\x9f\x98\x80"
                        "emoji";
    assert_int_equal(gr_java_string_hash(emoji, strlen(emoji)), -1233692477);
    assert_int_equal(gr_coordinator_partition_for(emoji, strlen(emoji), 50), 27);
    /* Hashes to INT32_MIN: Kafka's abs maps it to 0. */
    assert_int_equal(gr_java_string_hash("polygenelubricants", 18), INT32_MIN);
    assert_int_equal(gr_kafka_abs(INT32_MIN), 0);
    assert_int_equal(gr_coordinator_partition_for("polygenelubricants", 18, 50), 0);
    /* A malformed byte counts as U+FFFD. */
    assert_int_equal(gr_java_string_hash("\xff", 1), 0xFFFD);
}

/* ---- a record's version framing ------------------------------------------------- */

static void test_record_open(void **state)
{
    (void)state;
    static const uint8_t v3[] = {0x00, 0x03, 0xab};
    gr_reader_t r;
    assert_int_equal(gr_coordinator_record_open((gr_bytes_t){v3, 3}, 3, &r), 3);
    assert_int_equal(gr_read_int8(&r), (int8_t)0xab); /* left on the schema */
    assert_int_equal(gr_coordinator_record_open((gr_bytes_t){v3, 3}, 2, &r), -EBADMSG);
    assert_int_equal(gr_coordinator_record_open((gr_bytes_t){v3, 1}, 3, &r), -EBADMSG);
    assert_int_equal(gr_coordinator_record_open((gr_bytes_t){NULL, GR_NULL_LEN}, 3, &r), -EBADMSG);
    static const uint8_t negative[] = {0xff, 0xff};
    assert_int_equal(gr_coordinator_record_open((gr_bytes_t){negative, 2}, 3, &r), -EBADMSG);
}

/* ---- the key table ---------------------------------------------------------------- */

typedef struct entry {
    int value;
    gr_coordinator_key_t key;
} entry_t;

static void count_dropped(gr_coordinator_key_t *k, void *arg)
{
    *(int *)arg += GR_COORDINATOR_ENTRY(k, entry_t, key)->value;
}

static void test_key_table(void **state)
{
    (void)state;
    gr_coordinator_keys_t t;
    assert_int_equal(gr_coordinator_keys_init(&t, 4), 0); /* few buckets: chains */
    char ids[10][4];
    entry_t e[10];
    for (int i = 0; i < 10; i++) {
        snprintf(ids[i], sizeof ids[i], "k%d", i);
        e[i] = (entry_t){.value = 1 << i, .key = {.id = ids[i], .partition = i % 3}};
        assert_null(gr_coordinator_keys_find(&t, gr_str(ids[i])));
        gr_coordinator_keys_add(&t, &e[i].key);
    }
    assert_int_equal(t.count, 10);
    assert_ptr_equal(gr_coordinator_keys_find(&t, gr_str("k7")), &e[7].key);
    assert_ptr_equal(GR_COORDINATOR_ENTRY(gr_coordinator_keys_find(&t, gr_str("k7")), entry_t, key),
                     &e[7]);
    /* Iteration sees each key once, also while removing the current one. */
    int seen = 0;
    gr_coordinator_key_t *next;
    for (gr_coordinator_key_t *k = gr_coordinator_keys_first(&t); k; k = next) {
        next = gr_coordinator_keys_next(&t, k);
        seen += GR_COORDINATOR_ENTRY(k, entry_t, key)->value;
        if (k == &e[4].key)
            gr_coordinator_keys_remove(&t, k);
    }
    assert_int_equal(seen, (1 << 10) - 1);
    assert_null(gr_coordinator_keys_find(&t, gr_str("k4")));
    assert_int_equal(t.count, 9);
    /* Partition 1's keys: k1, k7 (k4 is gone). */
    int dropped = 0;
    assert_int_equal(gr_coordinator_keys_drop(&t, 1, count_dropped, &dropped), 2);
    assert_int_equal(dropped, (1 << 1) | (1 << 7));
    assert_null(gr_coordinator_keys_find(&t, gr_str("k1")));
    assert_non_null(gr_coordinator_keys_find(&t, gr_str("k0")));
    dropped = 0;
    assert_int_equal(gr_coordinator_keys_drop(&t, -1, count_dropped, &dropped), 7);
    assert_int_equal(t.count, 0);
    assert_null(gr_coordinator_keys_first(&t));
    gr_coordinator_keys_fini(&t);
    assert_null(gr_coordinator_keys_find(&t, gr_str("k0")));
}

/* ---- the runtime on a real broker ------------------------------------------------- */

/* What H was told. */
typedef struct seen {
    int replayed; /* records */
    char keys[MAX_RECORDS][MAX_KEY_BYTES];
    gr_coordinator_record_origin_t origins[MAX_RECORDS];
    int markers;
    bool marker_commit;
    int64_t marker_producer;
    int loaded;
    int unloaded;
    int32_t unloaded_partition;
} seen_t;

typedef struct fixture {
    char dir[64];
    struct ev_loop *loop;
    gr_broker_t *b;
    FILE *log_file;
    gr_coordinator_runtime_t rt;
    seen_t seen;
} fixture_t;

static int replay(void *owner, const gr_coordinator_record_origin_t *origin, gr_bytes_t key,
                  gr_bytes_t value)
{
    (void)value;
    seen_t *s = owner;
    assert_true(s->replayed < MAX_RECORDS);
    snprintf(s->keys[s->replayed], MAX_KEY_BYTES, "%.*s", key.len, (const char *)key.ptr);
    s->origins[s->replayed++] = *origin;
    return 0;
}

static void replay_marker(void *owner, int32_t partition, int64_t producer_id, bool commit)
{
    (void)partition;
    seen_t *s = owner;
    s->markers++;
    s->marker_commit = commit;
    s->marker_producer = producer_id;
}

static void loaded(void *owner, int32_t partition)
{
    (void)partition;
    ((seen_t *)owner)->loaded++;
}

static size_t unload(void *owner, int32_t partition)
{
    seen_t *s = owner;
    s->unloaded++;
    s->unloaded_partition = partition;
    return 0;
}

static const gr_coordinator_handler_t handler = {
    .replay = replay,
    .replay_marker = replay_marker,
    .loaded = loaded,
    .unload = unload,
};

static void runtime_init(fixture_t *fx, bool reload_on_new_epoch)
{
    gr_internal_topic_t topic = {.name = TOPIC,
                                 .factor_key = "test.replication.factor",
                                 .log_tag = "test",
                                 .partitions = PARTITIONS,
                                 .factor = 1};
    gr_coordinator_spec_t spec = {.log_tag = "test",
                                  .keys = "key(s)",
                                  .load_slice = 1, /* one batch per loop iteration */
                                  .reload_on_new_epoch = reload_on_new_epoch,
                                  .serve_failed_replay = false};
    gr_coordinator_runtime_init(&fx->rt, fx->b, &topic, &spec, &handler, &fx->seen);
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof(*fx));
    snprintf(fx->dir, sizeof fx->dir, "/tmp/gr-coordrt-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    char dirs[128];
    snprintf(dirs, sizeof dirs, "log.dirs=%s", fx->dir);
    const char *overrides[] = {dirs, "listeners=PLAINTEXT://127.0.0.1:0"};
    gr_config_t config;
    char err[256];
    if (gr_config_load(&config, NULL, overrides, 2, NULL, err, sizeof err) != 0)
        return -1;
    fx->loop = ev_loop_new(EVFLAG_AUTO);
    fx->b = calloc(1, sizeof(*fx->b));
    if (!fx->loop || !fx->b || gr_broker_init(fx->b, fx->loop, &config) != 0)
        return -1;
    fx->log_file = getenv("GR_TEST_LOG") ? fdopen(dup(2), "w") : fopen("/dev/null", "w");
    fx->b->log.out = fx->log_file;
    if (gr_broker_start(fx->b) != 0)
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_coordinator_runtime_fini(&fx->rt);
    (void)gr_broker_fini(fx->b);
    free(fx->b);
    ev_loop_destroy(fx->loop);
    fclose(fx->log_file);
    gr_log_dir_remove_tree(NULL, fx->dir);
    free(fx);
    return 0;
}

static gr_partition_t *partition_of_topic(fixture_t *fx, int32_t partition)
{
    gr_topic_t *t = gr_topics_find(fx->b->topics, TOPIC, strlen(TOPIC));
    assert_non_null(t);
    return gr_topic_partition(t, partition);
}

/* Appends one batch of count records "k<first>".. to partition 0 (transactional when producer >=
 * 0). */
static void append_batch(fixture_t *fx, int first, int count, int64_t producer)
{
    char keys[MAX_RECORDS][MAX_KEY_BYTES];
    gr_record_t recs[MAX_RECORDS];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < count; i++) {
        int n = snprintf(keys[i], sizeof keys[i], "k%d", first + i);
        recs[i].offset_delta = i;
        recs[i].key = (gr_bytes_t){(const uint8_t *)keys[i], n};
        recs[i].value = (gr_bytes_t){(const uint8_t *)"v", 1};
    }
    gr_batch_header_t h = {.last_offset_delta = count - 1,
                           .attributes = producer >= 0 ? GR_BATCH_ATTR_TRANSACTIONAL : 0,
                           .producer_id = producer,
                           .producer_epoch = producer >= 0 ? 0 : -1,
                           .base_sequence = -1};
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, recs, count, GR_COMPRESSION_NONE), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_partition_append(partition_of_topic(fx, 0), w.buf, w.len, 0, &info), 0);
    gr_writer_fini(&w);
}

static void append_marker(fixture_t *fx, int64_t producer, bool commit)
{
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_control_batch_build(&w, producer, 0, 0, commit, 0), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_partition_append(partition_of_topic(fx, 0), w.buf, w.len, 0, &info), 0);
    gr_writer_fini(&w);
}

/* TOPIC with partition 0 holding: [k0 k1] [k2, transactional] [commit marker]: 3 batches. */
static void make_topic(fixture_t *fx)
{
    assert_non_null(gr_test_create_topic(fx->loop, fx->b, TOPIC, PARTITIONS, NULL, 0));
    append_batch(fx, 0, 2, -1);
    append_batch(fx, 2, 1, PRODUCER);
    append_marker(fx, PRODUCER, true);
}

/* A key whose partition of TOPIC is `partition`. */
static gr_str_t key_on(int32_t partition)
{
    static const char *const keys[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (gr_coordinator_partition_for(keys[i], 1, PARTITIONS) == partition)
            return gr_str(keys[i]);
    fail_msg("no key for partition %d", partition);
    return gr_str("");
}

static gr_kerr_t check(fixture_t *fx, int32_t partition)
{
    int32_t p = -1;
    gr_kerr_t err = gr_coordinator_runtime_check(&fx->rt, key_on(partition), &p);
    if (err == GR_KERR_NONE || err == GR_KERR_NOT_COORDINATOR ||
        err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS)
        assert_int_equal(p, partition);
    return err;
}

static bool replay_done(void *arg)
{
    return !gr_coordinator_runtime_loading(arg);
}

static void run_until_loaded(fixture_t *fx)
{
    gr_test_wait(fx->loop, replay_done, &fx->rt, "the replay");
}

/* Batches seen so far: records of the two data batches, plus markers. */
static int batches_seen(const seen_t *s)
{
    return (s->replayed >= 2) + (s->replayed >= 3) + s->markers;
}

static void test_load_in_slices(void **state)
{
    fixture_t *fx = *state;
    make_topic(fx);
    runtime_init(fx, false);
    gr_coordinator_runtime_elect(&fx->rt, 0, 0);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_LOADING);
    assert_int_equal(check(fx, 0), GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    /* One batch per iteration, never more: three iterations at least. */
    int iterations = 0, before = 0;
    while (gr_coordinator_runtime_loading(&fx->rt)) {
        ev_run(fx->loop, EVRUN_NOWAIT);
        int now = batches_seen(&fx->seen);
        assert_true(now - before <= 1);
        before = now;
        assert_true(++iterations < 1000);
    }
    assert_true(iterations >= 3);
    assert_int_equal(fx->seen.replayed, 3);
    assert_string_equal(fx->seen.keys[0], "k0");
    assert_string_equal(fx->seen.keys[2], "k2");
    assert_int_equal(fx->seen.origins[0].partition, 0);
    assert_int_equal(fx->seen.origins[0].producer_id, -1);
    assert_int_equal(fx->seen.origins[1].log_offset, 0); /* the batch's base offset */
    assert_int_equal(fx->seen.origins[2].producer_id, PRODUCER);
    assert_int_equal(fx->seen.origins[2].log_offset, 2);
    assert_int_equal(fx->seen.markers, 1);
    assert_true(fx->seen.marker_commit);
    assert_int_equal(fx->seen.marker_producer, PRODUCER);
    assert_int_equal(fx->seen.loaded, 1);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_LOADED);
    assert_int_equal(gr_coordinator_runtime_epoch(&fx->rt, 0), 0);
    assert_int_equal(check(fx, 0), GR_KERR_NONE);
}

static void test_check_and_locate(void **state)
{
    fixture_t *fx = *state;
    runtime_init(fx, false);
    gr_coordinator_node_t node;
    /* No T yet: locate creates it (single-node: at once, through the controller). */
    assert_int_equal(check(fx, 0), GR_KERR_COORDINATOR_NOT_AVAILABLE);
    make_topic(fx);
    assert_int_equal(check(fx, 1), GR_KERR_NOT_COORDINATOR); /* never elected */
    assert_int_equal(gr_coordinator_runtime_locate(&fx->rt, key_on(1), &node), GR_KERR_NONE);
    assert_int_equal(node.node_id, fx->b->config.broker_id); /* the topic table's leader */
    /* An empty partition has nothing to replay: LOADED at once, nothing called but loaded. */
    gr_coordinator_runtime_elect(&fx->rt, 1, 0);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 1), GR_COORDINATOR_LOADED);
    assert_int_equal(check(fx, 1), GR_KERR_NONE);
    assert_false(gr_coordinator_runtime_creating_topic(&fx->rt));
    /* After fini: nothing answers, nothing is called. */
    gr_coordinator_runtime_fini(&fx->rt);
    assert_int_equal(check(fx, 1), GR_KERR_COORDINATOR_NOT_AVAILABLE);
    assert_int_equal(gr_coordinator_runtime_locate(&fx->rt, key_on(1), &node),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    assert_int_equal(gr_coordinator_runtime_ensure_topic(&fx->rt),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    gr_coordinator_runtime_elect(&fx->rt, 0, 1);
    gr_coordinator_runtime_resign(&fx->rt, 1, 1);
    assert_int_equal(fx->seen.replayed + fx->seen.unloaded, 0);
}

static void test_resign_and_stale(void **state)
{
    fixture_t *fx = *state;
    make_topic(fx);
    runtime_init(fx, false);
    gr_coordinator_runtime_elect(&fx->rt, 0, 3);
    run_until_loaded(fx);
    gr_coordinator_runtime_resign(&fx->rt, 0, 2); /* stale */
    assert_int_equal(fx->seen.unloaded, 0);
    gr_coordinator_runtime_resign(&fx->rt, 0, 3);
    assert_int_equal(fx->seen.unloaded, 1);
    assert_int_equal(fx->seen.unloaded_partition, 0);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_RESIGNED);
    assert_int_equal(check(fx, 0), GR_KERR_NOT_COORDINATOR);
    gr_coordinator_runtime_resign(&fx->rt, 0, 3); /* not ours: nothing to unload */
    assert_int_equal(fx->seen.unloaded, 1);
    gr_coordinator_runtime_elect(&fx->rt, 0, 3); /* the resignation at 3 came last */
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_RESIGNED);
    gr_coordinator_runtime_elect(&fx->rt, 0, 4);
    run_until_loaded(fx);
    assert_int_equal(fx->seen.replayed, 6); /* all of it again */
    assert_int_equal(fx->seen.loaded, 2);
    /* Without the reload policy a new epoch only moves the epoch. */
    gr_coordinator_runtime_elect(&fx->rt, 0, 5);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_LOADED);
    assert_int_equal(gr_coordinator_runtime_epoch(&fx->rt, 0), 5);
    assert_int_equal(fx->seen.unloaded, 1);
}

static void test_resign_mid_replay_restarts(void **state)
{
    fixture_t *fx = *state;
    make_topic(fx);
    runtime_init(fx, false);
    gr_coordinator_runtime_elect(&fx->rt, 0, 0);
    while (fx->seen.replayed == 0)
        ev_run(fx->loop, EVRUN_NOWAIT);
    assert_int_equal(fx->seen.replayed, 2); /* the first batch only */
    gr_coordinator_runtime_resign(&fx->rt, 0, GR_COORDINATOR_ANY_EPOCH);
    assert_int_equal(fx->seen.unloaded, 1);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_NOT_OURS);
    assert_false(gr_coordinator_runtime_loading(&fx->rt));
    gr_coordinator_runtime_elect(&fx->rt, 0, 0); /* the epoch was forgotten */
    run_until_loaded(fx);
    assert_int_equal(fx->seen.replayed, 5); /* from the log start: k0 k1 k2 */
    assert_string_equal(fx->seen.keys[2], "k0");
    assert_int_equal(fx->seen.loaded, 1);
}

static void test_reload_on_new_epoch(void **state)
{
    fixture_t *fx = *state;
    make_topic(fx);
    runtime_init(fx, true);
    gr_coordinator_runtime_elect(&fx->rt, 0, 0);
    while (fx->seen.replayed == 0)
        ev_run(fx->loop, EVRUN_NOWAIT);
    /* Mid-replay, a new epoch: unloaded, and replayed again from the log start. */
    gr_coordinator_runtime_elect(&fx->rt, 0, 1);
    assert_int_equal(fx->seen.unloaded, 1);
    assert_int_equal(gr_coordinator_runtime_state(&fx->rt, 0), GR_COORDINATOR_LOADING);
    run_until_loaded(fx);
    assert_int_equal(fx->seen.replayed, 5);
    assert_string_equal(fx->seen.keys[2], "k0");
    gr_coordinator_runtime_elect(&fx->rt, 0, 1); /* the same epoch: nothing */
    assert_int_equal(fx->seen.unloaded, 1);
    gr_coordinator_runtime_elect(&fx->rt, 0, 2); /* loaded, a new epoch: reloaded */
    assert_int_equal(fx->seen.unloaded, 2);
    run_until_loaded(fx);
    assert_int_equal(fx->seen.replayed, 8);
    assert_int_equal(fx->seen.loaded, 2);
    assert_int_equal(gr_coordinator_runtime_epoch(&fx->rt, 0), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_transitions),
        cmocka_unit_test(test_replaced_topic),
        cmocka_unit_test(test_partition_for),
        cmocka_unit_test(test_record_open),
        cmocka_unit_test(test_key_table),
        cmocka_unit_test_setup_teardown(test_load_in_slices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_and_locate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resign_and_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resign_mid_replay_restarts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reload_on_new_epoch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
