/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the checkpoint table (src/log/checkpoint_table.c): a
 * checkpoint file read once into a table keyed by topic-partition, then
 * looked up, updated and emptied partition by partition.
 * Each test works in its own mkdtemp directory under /tmp.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log/checkpoint_table.h"
#include "log/log_dir.h"

/* Enough entries for the table to grow its buckets many times. */
#define MANY_PARTITIONS 20000

typedef struct fixture {
    char root[64];
    gr_log_dir_t *d;
    gr_checkpoint_table_t *t;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_checkpoint_table_test_XXXXXX");
    if (!mkdtemp(f->root) || gr_log_dir_open(f->root, NULL, &f->d) < 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_checkpoint_table_free(f->t);
    gr_log_dir_close(f->d);
    gr_log_dir_remove_tree(NULL, f->root);
    free(f);
    return 0;
}

static void spit(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_missing_file_is_empty(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_checkpoint_table_read(f->d, GR_CHECKPOINT_RECOVERY_POINT, &f->t), 0);
    assert_non_null(f->t);
    assert_int_equal(gr_checkpoint_table_count(f->t), 0);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t", 0, -7), -7);
}

static void test_read_and_find(void **state)
{
    fixture_t *f = *state;
    /* A partition named twice keeps its last line; "t-1" 0 is not "t" 10. */
    spit(f->root, GR_CHECKPOINT_LOG_START, "0\n5\nt 0 5\nt 1 6\nt-1 0 7\nt 10 8\nt 0 9\n");
    assert_int_equal(gr_checkpoint_table_read(f->d, GR_CHECKPOINT_LOG_START, &f->t), 0);
    assert_int_equal(gr_checkpoint_table_count(f->t), 4);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t", 0, -1), 9);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t", 1, -1), 6);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t-1", 0, -1), 7);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t", 10, -1), 8);
    assert_int_equal(gr_checkpoint_table_find(f->t, "t", 2, -1), -1);
    assert_int_equal(gr_checkpoint_table_find(f->t, "u", 0, -1), -1);
}

static void test_malformed_file_refused(void **state)
{
    fixture_t *f = *state;
    spit(f->root, GR_CHECKPOINT_REPLICATION, "0\n2\nt 0 1\n");
    assert_int_equal(gr_checkpoint_table_read(f->d, GR_CHECKPOINT_REPLICATION, &f->t), -EINVAL);
    assert_null(f->t);
}

static void test_set_remove(void **state)
{
    fixture_t *f = *state;
    assert_non_null(f->t = gr_checkpoint_table_new());
    assert_int_equal(gr_checkpoint_table_set(f->t, "a", 3, 30), 0);
    assert_int_equal(gr_checkpoint_table_set(f->t, "a", 3, 31), 0); /* replaces */
    assert_int_equal(gr_checkpoint_table_count(f->t), 1);
    assert_int_equal(gr_checkpoint_table_find(f->t, "a", 3, -1), 31);
    gr_checkpoint_table_remove(f->t, "a", 4); /* absent: nothing */
    gr_checkpoint_table_remove(f->t, "a", 3);
    assert_int_equal(gr_checkpoint_table_count(f->t), 0);
    assert_int_equal(gr_checkpoint_table_find(f->t, "a", 3, -1), -1);
}

static void sum_offsets(const char *topic, int32_t partition, int64_t offset, void *arg)
{
    (void)topic;
    (void)partition;
    *(int64_t *)arg += offset;
}

/* A file as big as a broker with 20,000 partitions writes: every line found, in one read. */
static void test_many_partitions(void **state)
{
    fixture_t *f = *state;
    gr_checkpoint_entry_t *e = calloc(MANY_PARTITIONS, sizeof *e);
    assert_non_null(e);
    for (int i = 0; i < MANY_PARTITIONS; i++) {
        snprintf(e[i].topic, sizeof e[i].topic, "topic-%02d", i / 1000);
        e[i].partition = i % 1000;
        e[i].offset = i;
    }
    assert_int_equal(
        gr_log_dir_write_checkpoint(f->d, GR_CHECKPOINT_RECOVERY_POINT, e, MANY_PARTITIONS), 0);
    free(e);
    assert_int_equal(gr_checkpoint_table_read(f->d, GR_CHECKPOINT_RECOVERY_POINT, &f->t), 0);
    assert_int_equal(gr_checkpoint_table_count(f->t), MANY_PARTITIONS);
    char topic[32];
    for (int i = 0; i < MANY_PARTITIONS; i++) {
        snprintf(topic, sizeof topic, "topic-%02d", i / 1000);
        assert_int_equal(gr_checkpoint_table_find(f->t, topic, i % 1000, -1), i);
    }
    int64_t sum = 0;
    gr_checkpoint_table_foreach(f->t, sum_offsets, &sum);
    assert_int_equal(sum, (int64_t)MANY_PARTITIONS * (MANY_PARTITIONS - 1) / 2);
    for (int i = 0; i < MANY_PARTITIONS; i += 2) {
        snprintf(topic, sizeof topic, "topic-%02d", i / 1000);
        gr_checkpoint_table_remove(f->t, topic, i % 1000);
    }
    assert_int_equal(gr_checkpoint_table_count(f->t), MANY_PARTITIONS / 2);
    assert_int_equal(gr_checkpoint_table_find(f->t, "topic-19", 999, -1), MANY_PARTITIONS - 1);
    assert_int_equal(gr_checkpoint_table_find(f->t, "topic-19", 998, -1), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_missing_file_is_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_and_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_file_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_partitions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
