/* SPDX-License-Identifier: Apache-2.0 */
/* The coordinator runtime (src/coordinator/): the slots' transitions by epoch, a key's partition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/hash.h"
#include "coordinator/slots.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_transitions),
        cmocka_unit_test(test_replaced_topic),
        cmocka_unit_test(test_partition_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
