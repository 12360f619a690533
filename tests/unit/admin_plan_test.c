/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admin/plan: gregor-admin's reassignment, election and topics-to-move
 * files are read as Kafka writes them (whitespace, optional log_dirs),
 * refused with a reason when malformed or ambiguous (duplicate partitions,
 * duplicate replicas, log_dirs other than "any", wrong version), written
 * back in Kafka's compact form, and --generate's proposal keeps each
 * partition's replication factor on the listed brokers, deterministically.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "admin/plan.h"

static int parse(gr_admin_plan_kind_t kind, const char *text, gr_admin_plan_t *p, char *err)
{
    return gr_admin_plan_parse(kind, text, strlen(text), p, err, GR_ADMIN_PLAN_ERR_MAX);
}

static void test_reassignment_file(void **state)
{
    (void)state;
    gr_admin_plan_t p;
    char err[GR_ADMIN_PLAN_ERR_MAX] = "";
    const char *text = "{ \"version\": 1,\n \"partitions\": [\n"
                       "  {\"topic\": \"foo\", \"partition\": 1, \"replicas\": [3, 1],"
                       " \"log_dirs\": [\"any\", \"any\"]},\n"
                       "  {\"topic\": \"bar\", \"partition\": 0, \"replicas\": [2]},\n"
                       "  {\"topic\": \"foo\", \"partition\": 0, \"replicas\": [1, 2]}]}\n";
    assert_int_equal(parse(GR_ADMIN_PLAN_REASSIGNMENT, text, &p, err), 0);
    assert_int_equal(p.count, 3);
    assert_int_equal(gr_admin_plan_find(&p, "foo", 1), 0);
    assert_int_equal(gr_admin_plan_find(&p, "foo", 2), -1);
    gr_admin_plan_sort(&p);
    char *out = gr_admin_plan_format(&p);
    assert_string_equal(
        out,
        "{\"version\":1,\"partitions\":["
        "{\"topic\":\"bar\",\"partition\":0,\"replicas\":[2],\"log_dirs\":[\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":0,\"replicas\":[1,2],\"log_dirs\":[\"any\",\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":1,\"replicas\":[3,1],\"log_dirs\":[\"any\",\"any\"]}]}");
    /* What it writes, it reads back the same. */
    gr_admin_plan_t again;
    assert_int_equal(parse(GR_ADMIN_PLAN_REASSIGNMENT, out, &again, err), 0);
    char *out2 = gr_admin_plan_format(&again);
    assert_string_equal(out, out2);
    free(out);
    free(out2);
    gr_admin_plan_free(&again);
    gr_admin_plan_free(&p);
}

/* Each bad file is refused with -EINVAL and a reason naming the problem. */
static void test_reassignment_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"", "not a JSON document"},
        {"[1]", "not a JSON object"},
        {"{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1]}]}", "version"},
        {"{\"version\":2,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1]}]}",
         "version"},
        {"{\"version\":1}", "\"partitions\" must be an array"},
        {"{\"version\":1,\"partitions\":[]}", "lists no partition"},
        {"{\"version\":1,\"partitions\":[{\"partition\":0,\"replicas\":[1]}]}", "\"topic\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"\",\"partition\":0,\"replicas\":[1]}]}",
         "\"topic\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":-1,\"replicas\":[1]}]}",
         "\"partition\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":\"0\",\"replicas\":[1]}]}",
         "\"partition\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}", "\"replicas\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[]}]}",
         "\"replicas\""},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,-2]}]}",
         "broker ids"},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,1]}]}",
         "broker 1 is listed twice"},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1]},"
         "{\"topic\":\"t\",\"partition\":0,\"replicas\":[2]}]}",
         "partition t-0 is listed twice"},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2],"
         "\"log_dirs\":[\"any\"]}]}",
         "log_dirs"},
        {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1],"
         "\"log_dirs\":[\"/data/a\"]}]}",
         "log_dirs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_admin_plan_t p;
        char err[GR_ADMIN_PLAN_ERR_MAX] = "";
        int rc = parse(GR_ADMIN_PLAN_REASSIGNMENT, bad[i].text, &p, err);
        if (rc != -EINVAL || !strstr(err, bad[i].reason))
            fail_msg("file %zu: rc %d, reason '%s', want one with '%s'", i, rc, err, bad[i].reason);
        assert_int_equal(p.count, 0);
    }
}

static void test_election_and_topics_files(void **state)
{
    (void)state;
    gr_admin_plan_t p;
    char err[GR_ADMIN_PLAN_ERR_MAX] = "";
    assert_int_equal(parse(GR_ADMIN_PLAN_ELECTION,
                           "{\"partitions\":[{\"topic\":\"t\",\"partition\":0},"
                           "{\"topic\":\"t\",\"partition\":1}]}",
                           &p, err),
                     0);
    assert_int_equal(p.count, 2);
    assert_null(p.moves[1].replicas);
    gr_admin_plan_free(&p);
    assert_int_equal(parse(GR_ADMIN_PLAN_ELECTION,
                           "{\"partitions\":[{\"topic\":\"t\",\"partition\":0},"
                           "{\"topic\":\"t\",\"partition\":0}]}",
                           &p, err),
                     -EINVAL);
    assert_non_null(strstr(err, "listed twice"));

    assert_int_equal(parse(GR_ADMIN_PLAN_TOPICS,
                           "{\"version\":1,\"topics\":[{\"topic\":\"a\"},{\"topic\":\"b\"}]}", &p,
                           err),
                     0);
    assert_int_equal(p.topic_count, 2);
    assert_string_equal(p.topics[1], "b");
    gr_admin_plan_free(&p);
    assert_int_equal(parse(GR_ADMIN_PLAN_TOPICS, "{\"version\":1,\"topics\":[]}", &p, err),
                     -EINVAL);
    assert_int_equal(parse(GR_ADMIN_PLAN_TOPICS,
                           "{\"version\":1,\"topics\":[{\"topic\":\"a\"},{\"topic\":\"a\"}]}", &p,
                           err),
                     -EINVAL);
}

static void test_load(void **state)
{
    (void)state;
    gr_admin_plan_t p;
    char err[GR_ADMIN_PLAN_ERR_MAX] = "";
    assert_int_equal(
        gr_admin_plan_load(GR_ADMIN_PLAN_TOPICS, "/nonexistent/plan.json", &p, err, sizeof err),
        -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/plan.json"));
    char path[] = "/tmp/admin_plan_testXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"version\":1,\"topics\":[{\"topic\":\"x\"}]}\n", f);
    fclose(f);
    assert_int_equal(gr_admin_plan_load(GR_ADMIN_PLAN_TOPICS, path, &p, err, sizeof err), 0);
    assert_string_equal(p.topics[0], "x");
    gr_admin_plan_free(&p);
    unlink(path);
}

static void test_propose(void **state)
{
    (void)state;
    /* foo: 4 partitions of factor 2; bar: 1 partition of factor 1 and one of 3. */
    gr_admin_plan_t cur;
    gr_admin_plan_init(&cur);
    static const int32_t r2[] = {7, 8}, r1[] = {7}, r3[] = {7, 8, 9};
    for (int32_t p = 0; p < 4; p++)
        assert_int_equal(gr_admin_plan_add(&cur, "foo", 3, p, r2, 2), 0);
    assert_int_equal(gr_admin_plan_add(&cur, "bar", 3, 0, r1, 1), 0);
    assert_int_equal(gr_admin_plan_add(&cur, "bar", 3, 1, r3, 3), 0);
    gr_admin_plan_sort(&cur);
    gr_replica_broker_t brokers[] = {{1, NULL}, {2, NULL}, {3, NULL}};
    gr_admin_plan_t out;
    char err[GR_ADMIN_PLAN_ERR_MAX] = "";
    assert_int_equal(
        gr_admin_plan_propose(&cur, brokers, 3, GR_RACK_MODE_ENFORCED, &out, err, sizeof err), 0);
    char *text = gr_admin_plan_format(&out);
    /* gr_replica_assign's rack-unaware walk from start 0, shift 0. */
    assert_string_equal(
        text,
        "{\"version\":1,\"partitions\":["
        "{\"topic\":\"bar\",\"partition\":0,\"replicas\":[1],\"log_dirs\":[\"any\"]},"
        "{\"topic\":\"bar\",\"partition\":1,\"replicas\":[2,3,1],"
        "\"log_dirs\":[\"any\",\"any\",\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":0,\"replicas\":[1,2],\"log_dirs\":[\"any\",\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":1,\"replicas\":[2,3],\"log_dirs\":[\"any\",\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":2,\"replicas\":[3,1],\"log_dirs\":[\"any\",\"any\"]},"
        "{\"topic\":\"foo\",\"partition\":3,\"replicas\":[1,3],"
        "\"log_dirs\":[\"any\",\"any\"]}]}");
    free(text);
    gr_admin_plan_free(&out);

    /* Factor 3 on two brokers: refused with Kafka's reason. */
    assert_int_equal(
        gr_admin_plan_propose(&cur, brokers, 2, GR_RACK_MODE_ENFORCED, &out, err, sizeof err),
        -EINVAL);
    assert_non_null(strstr(err, "Replication factor: 3 larger than available brokers: 2"));
    assert_int_equal(out.count, 0);
    gr_admin_plan_free(&cur);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reassignment_file),
        cmocka_unit_test(test_reassignment_refused),
        cmocka_unit_test(test_election_and_topics_files),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_propose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
