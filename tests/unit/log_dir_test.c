/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the log directory module (src/log/log_dir.c) and the I/O
 * helpers (src/log/io.c): lock, clean-shutdown marker, meta.properties,
 * checkpoint files, partition enumeration, atomic writes under faults.
 * Each test works in its own mkdtemp directory under /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/io.h"
#include "log/log_dir.h"

typedef struct fixture {
    char root[64];
    gr_log_dir_t *d;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_log_dir_test_XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_log_dir_close(f->d);
    gr_log_dir_remove_tree(NULL, f->root);
    free(f);
    return 0;
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
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

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void test_lock_refuses_second_opener(void **state)
{
    fixture_t *f = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/logs", f->root);
    assert_int_equal(gr_log_dir_open(path, NULL, &f->d), 0);
    assert_true(exists(path, ".lock"));
    gr_log_dir_t *second = NULL;
    assert_int_equal(gr_log_dir_open(path, NULL, &second), -EWOULDBLOCK);
    assert_null(second);
    gr_log_dir_close(f->d);
    f->d = NULL;
    assert_int_equal(gr_log_dir_open(path, NULL, &second), 0);
    gr_log_dir_close(second);
}

static void test_clean_shutdown_marker(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    assert_false(gr_log_dir_was_clean(f->d));
    assert_int_equal(gr_log_dir_mark_dirty(f->d), 0); /* no marker: fine */
    assert_int_equal(gr_log_dir_mark_clean(f->d), 0);
    assert_true(exists(f->root, ".kafka_cleanshutdown"));
    gr_log_dir_close(f->d);
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    assert_true(gr_log_dir_was_clean(f->d));
    assert_int_equal(gr_log_dir_mark_dirty(f->d), 0);
    assert_false(exists(f->root, ".kafka_cleanshutdown"));
    gr_log_dir_close(f->d);
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    assert_false(gr_log_dir_was_clean(f->d));
}

static void test_meta_properties(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    gr_meta_properties_t m;
    assert_int_equal(gr_log_dir_read_meta(f->d, &m), -ENOENT);
    gr_meta_properties_t w = {.version = 0, .broker_id = 7};
    snprintf(w.cluster_id, sizeof w.cluster_id, "AbCdEfGhIjKlMnOpQrStUv");
    assert_int_equal(gr_log_dir_write_meta(f->d, &w), 0);
    assert_int_equal(gr_log_dir_read_meta(f->d, &m), 0);
    assert_int_equal(m.version, 0);
    assert_int_equal(m.broker_id, 7);
    assert_string_equal(m.cluster_id, "AbCdEfGhIjKlMnOpQrStUv");
    char *text = slurp(f->root, "meta.properties");
    assert_non_null(strstr(text, "\nversion=0\n"));
    assert_non_null(strstr(text, "\nbroker.id=7\n"));
    assert_non_null(strstr(text, "\ncluster.id=AbCdEfGhIjKlMnOpQrStUv\n"));
    free(text);

    /* As Kafka writes it (Properties.store: comments, any key order). */
    spit(f->root, "meta.properties",
         "#\n#Tue Dec 01 10:00:00 UTC 2026\ncluster.id=xyz\nversion=0\nbroker.id=3\n");
    assert_int_equal(gr_log_dir_read_meta(f->d, &m), 0);
    assert_int_equal(m.broker_id, 3);
    assert_string_equal(m.cluster_id, "xyz");
    spit(f->root, "meta.properties", "version=1\nbroker.id=3\n");
    assert_int_equal(gr_log_dir_read_meta(f->d, &m), -EINVAL);
    spit(f->root, "meta.properties", "version=0\nbroker.id=x\n");
    assert_int_equal(gr_log_dir_read_meta(f->d, &m), -EINVAL);
}

static void test_checkpoint_round_trip(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    gr_checkpoint_entry_t *got;
    size_t n;
    assert_int_equal(gr_log_dir_read_checkpoint(f->d, GR_CHECKPOINT_RECOVERY_POINT, &got, &n), 0);
    assert_int_equal(n, 0);
    assert_null(got);

    gr_checkpoint_entry_t e[3] = {
        {"my-topic", 0, 42},
        {"a.b_c-d", 12, 1234567890123LL},
        {"__consumer_offsets", 49, 0},
    };
    assert_int_equal(gr_log_dir_write_checkpoint(f->d, GR_CHECKPOINT_RECOVERY_POINT, e, 3), 0);
    char *text = slurp(f->root, "recovery-point-offset-checkpoint");
    assert_string_equal(text, "0\n3\nmy-topic 0 42\na.b_c-d 12 1234567890123\n"
                              "__consumer_offsets 49 0\n");
    free(text);
    assert_false(exists(f->root, "recovery-point-offset-checkpoint.tmp"));
    assert_int_equal(gr_log_dir_read_checkpoint(f->d, GR_CHECKPOINT_RECOVERY_POINT, &got, &n), 0);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(got[i].topic, e[i].topic);
        assert_int_equal(got[i].partition, e[i].partition);
        assert_int_equal(got[i].offset, e[i].offset);
    }
    assert_int_equal(gr_checkpoint_find(got, n, "a.b_c-d", 12, -1), 1234567890123LL);
    assert_int_equal(gr_checkpoint_find(got, n, "a.b_c-d", 11, -1), -1);
    free(got);

    /* Empty, and the other two names. */
    assert_int_equal(gr_log_dir_write_checkpoint(f->d, GR_CHECKPOINT_LOG_START, NULL, 0), 0);
    text = slurp(f->root, "log-start-offset-checkpoint");
    assert_string_equal(text, "0\n0\n");
    free(text);
    assert_int_equal(gr_log_dir_write_checkpoint(f->d, GR_CHECKPOINT_REPLICATION, e, 1), 0);
    assert_true(exists(f->root, "replication-offset-checkpoint"));

    /* Malformed files are refused. */
    const char *bad[] = {"1\n0\n", "0\n2\nt 0 1\n", "0\n1\nt x 1\n", "0\n1\nt 0\n", "", "0\n-1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        spit(f->root, "log-start-offset-checkpoint", bad[i]);
        assert_int_equal(gr_log_dir_read_checkpoint(f->d, GR_CHECKPOINT_LOG_START, &got, &n),
                         -EINVAL);
    }
}

/* Builds the text of e[0..n) with e[0]'s offset replaced by first_offset. */
static void checkpoint_text_of(gr_checkpoint_text_t *t, const gr_checkpoint_entry_t *e, size_t n,
                               int64_t first_offset)
{
    for (size_t i = 0; i < n; i++)
        gr_checkpoint_text_add(t, e[i].topic, e[i].partition, i ? e[i].offset : first_offset);
}

/* Written as text, and not rewritten while its content is unchanged. */
static void test_checkpoint_text(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    gr_checkpoint_entry_t e[2] = {{"my-topic", 0, 42}, {"a.b_c-d", 12, 1234567890123LL}};
    uint64_t hash = 0;
    gr_checkpoint_text_t t = {0};
    assert_int_equal(gr_log_dir_write_checkpoint_text(f->d, GR_CHECKPOINT_LOG_START, &t, &hash), 1);
    char *text = slurp(f->root, "log-start-offset-checkpoint");
    assert_string_equal(text, "0\n0\n");
    free(text);
    gr_checkpoint_text_fini(&t);

    checkpoint_text_of(&t, e, 2, 42);
    assert_int_equal(gr_log_dir_write_checkpoint_text(f->d, GR_CHECKPOINT_LOG_START, &t, &hash), 1);
    gr_checkpoint_text_fini(&t);
    text = slurp(f->root, "log-start-offset-checkpoint");
    assert_string_equal(text, "0\n2\nmy-topic 0 42\na.b_c-d 12 1234567890123\n");
    free(text);
    /* Unchanged: not written (the file, edited behind its back, stays so). */
    spit(f->root, "log-start-offset-checkpoint", "edited");
    checkpoint_text_of(&t, e, 2, 42);
    assert_int_equal(gr_log_dir_write_checkpoint_text(f->d, GR_CHECKPOINT_LOG_START, &t, &hash), 0);
    gr_checkpoint_text_fini(&t);
    text = slurp(f->root, "log-start-offset-checkpoint");
    assert_string_equal(text, "edited");
    free(text);
    checkpoint_text_of(&t, e, 2, 43);
    assert_int_equal(gr_log_dir_write_checkpoint_text(f->d, GR_CHECKPOINT_LOG_START, &t, &hash), 1);
    gr_checkpoint_text_fini(&t);
    text = slurp(f->root, "log-start-offset-checkpoint");
    assert_string_equal(text, "0\n2\nmy-topic 0 43\na.b_c-d 12 1234567890123\n");
    free(text);

    /* Many lines of the longest names grow the buffer; read back whole. */
    char topic[GR_TOPIC_NAME_MAX + 1];
    memset(topic, 'x', GR_TOPIC_NAME_MAX);
    topic[GR_TOPIC_NAME_MAX] = '\0';
    for (int32_t i = 0; i < 1000; i++)
        gr_checkpoint_text_add(&t, topic, i, INT64_MAX - i);
    assert_int_equal(gr_log_dir_write_checkpoint_text(f->d, GR_CHECKPOINT_REPLICATION, &t, &hash),
                     1);
    gr_checkpoint_text_fini(&t);
    gr_checkpoint_entry_t *got;
    size_t n;
    assert_int_equal(gr_log_dir_read_checkpoint(f->d, GR_CHECKPOINT_REPLICATION, &got, &n), 0);
    assert_int_equal(n, 1000);
    assert_string_equal(got[999].topic, topic);
    assert_int_equal(got[999].partition, 999);
    assert_int_equal(got[999].offset, INT64_MAX - 999);
    free(got);
}

/* Fails every fsync: an atomic write must leave the old file in place. */
static int failing_fsync(void *ctx, int fd)
{
    (void)ctx;
    (void)fd;
    return -EIO;
}

static void test_checkpoint_write_fault(void **state)
{
    fixture_t *f = *state;
    gr_io_ops_t io = *gr_io_default();
    io.fsync = failing_fsync;
    assert_int_equal(gr_log_dir_open(f->root, &io, &f->d), 0);
    spit(f->root, "recovery-point-offset-checkpoint", "0\n1\nt 0 5\n");
    gr_checkpoint_entry_t e = {"t", 0, 99};
    assert_int_equal(gr_log_dir_write_checkpoint(f->d, GR_CHECKPOINT_RECOVERY_POINT, &e, 1), -EIO);
    char *text = slurp(f->root, "recovery-point-offset-checkpoint");
    assert_string_equal(text, "0\n1\nt 0 5\n");
    free(text);
    assert_false(exists(f->root, "recovery-point-offset-checkpoint.tmp"));
    gr_log_dir_close(f->d); /* io lives on this stack frame */
    f->d = NULL;
}

static void test_list_partitions(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(gr_log_dir_open(f->root, NULL, &f->d), 0);
    const char *dirs[] = {"my-topic-0", "a.b-c-12",   "t-1.0123abcd-delete",  "nodash",
                          "t-x",        "t-2-future", "__consumer_offsets-49"};
    char path[256];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", f->root, dirs[i]);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    snprintf(path, sizeof path, "%s/t-1.0123abcd-delete/00000000000000000000.log", f->root);
    spit(f->root, "t-1.0123abcd-delete/00000000000000000000.log", "x");
    spit(f->root, "file-3", "not a dir");
    gr_log_dir_partition_t *parts;
    size_t n;
    assert_int_equal(gr_log_dir_list_partitions(f->d, &parts, &n), 0);
    assert_int_equal(n, 3);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(parts[i].name, "my-topic-0") == 0) {
            assert_string_equal(parts[i].topic, "my-topic");
            assert_int_equal(parts[i].partition, 0);
            seen |= 1;
        } else if (strcmp(parts[i].name, "a.b-c-12") == 0) {
            assert_string_equal(parts[i].topic, "a.b-c");
            assert_int_equal(parts[i].partition, 12);
            seen |= 2;
        } else if (strcmp(parts[i].name, "__consumer_offsets-49") == 0) {
            assert_string_equal(parts[i].topic, "__consumer_offsets");
            assert_int_equal(parts[i].partition, 49);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    free(parts);
    /* The interrupted deletion was finished. */
    assert_false(exists(f->root, "t-1.0123abcd-delete"));
}

static void test_parse_name(void **state)
{
    (void)state;
    char topic[GR_TOPIC_NAME_MAX + 1];
    int32_t p;
    assert_int_equal(gr_log_dir_parse_name("x-0", topic, &p), 0);
    assert_string_equal(topic, "x");
    assert_int_equal(p, 0);
    assert_int_equal(gr_log_dir_parse_name("a-b-2147483647", topic, &p), 0);
    assert_string_equal(topic, "a-b");
    assert_int_equal(p, INT32_MAX);
    assert_int_equal(gr_log_dir_parse_name("a-2147483648", topic, &p), -EINVAL);
    assert_int_equal(gr_log_dir_parse_name("-1", topic, &p), -EINVAL);
    assert_int_equal(gr_log_dir_parse_name("a-", topic, &p), -EINVAL);
    assert_int_equal(gr_log_dir_parse_name("a", topic, &p), -EINVAL);
    assert_int_equal(gr_log_dir_parse_name("a b-1", topic, &p), -EINVAL);
    char longname[300];
    memset(longname, 'x', 250);
    snprintf(longname + 250, 50, "-1");
    assert_int_equal(gr_log_dir_parse_name(longname, topic, &p), -EINVAL);
    longname[249] = '-';
    longname[250] = '1';
    longname[251] = '\0';
    assert_int_equal(gr_log_dir_parse_name(longname, topic, &p), 0);
    assert_int_equal(strlen(topic), 249);
}

static void test_io_helpers(void **state)
{
    fixture_t *f = *state;
    const gr_io_ops_t *io = gr_io_default();
    char path[256];
    snprintf(path, sizeof path, "%s/file", f->root);
    assert_int_equal(gr_io_write_file_atomic(io, path, "hello", 5), 0);
    char *data;
    size_t len;
    assert_int_equal(gr_io_read_file(io, path, 100, &data, &len), 0);
    assert_int_equal(len, 5);
    assert_string_equal(data, "hello");
    free(data);
    assert_int_equal(gr_io_read_file(io, path, 4, &data, &len), -EFBIG);
    snprintf(path, sizeof path, "%s/missing", f->root);
    assert_int_equal(gr_io_read_file(io, path, 4, &data, &len), -ENOENT);
    int64_t size = -1;
    snprintf(path, sizeof path, "%s/file", f->root);
    assert_int_equal(io->stat(io->ctx, path, &size, NULL), 0);
    assert_int_equal(size, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lock_refuses_second_opener, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_shutdown_marker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_properties, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_write_fault, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_partitions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_helpers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
