/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metadata/zk_json: the writer produces Kafka's compact znode JSON byte for
 * byte and refuses misuse; the reader round-trips it, decodes every escape,
 * keeps int64 bounds, and rejects malformed input (including every strict
 * prefix of a valid document) with -EINVAL; uuids use Kafka's base64url form.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "metadata/zk_json.h"

static const char assignment[] =
    "{\"partitions\":{\"0\":[1],\"1\":[1,2]},\"topic_id\":\"AAECAwQFBgcICQoLDA0ODw\","
    "\"adding_replicas\":{},\"removing_replicas\":{},\"version\":3}";

static void write_assignment(gr_zk_json_writer_t *w)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "partitions");
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "0");
    gr_zk_json_array_begin(w);
    gr_zk_json_int(w, 1);
    gr_zk_json_array_end(w);
    gr_zk_json_key(w, "1");
    gr_zk_json_array_begin(w);
    gr_zk_json_int(w, 1);
    gr_zk_json_int(w, 2);
    gr_zk_json_array_end(w);
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "topic_id");
    gr_zk_json_string(w, "AAECAwQFBgcICQoLDA0ODw");
    gr_zk_json_key(w, "adding_replicas");
    gr_zk_json_object_begin(w);
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "removing_replicas");
    gr_zk_json_object_begin(w);
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, 3);
    gr_zk_json_object_end(w);
}

static void test_writer_kafka_layout(void **state)
{
    (void)state;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    write_assignment(&w);
    const char *text = NULL;
    size_t len = 0;
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), 0);
    assert_int_equal(len, strlen(assignment));
    assert_string_equal(text, assignment);
    gr_zk_json_writer_fini(&w);
}

static void test_writer_escapes_and_ints(void **state)
{
    (void)state;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    gr_zk_json_array_begin(&w);
    gr_zk_json_string(&w, "a\"b\\c\n\x01/\xc3\xa9");
    gr_zk_json_int(&w, INT64_MIN);
    gr_zk_json_int(&w, INT64_MAX);
    gr_zk_json_int(&w, 0);
    gr_zk_json_array_begin(&w);
    gr_zk_json_array_end(&w);
    gr_zk_json_array_end(&w);
    const char *text = NULL;
    size_t len = 0;
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), 0);
    assert_string_equal(text, "[\"a\\\"b\\\\c\\u000a\\u0001/\xc3\xa9\",-9223372036854775808,"
                              "9223372036854775807,0,[]]");
    gr_zk_json_t *v = NULL;
    assert_int_equal(gr_zk_json_parse(text, len, &v), 0);
    assert_int_equal(v->type, GR_ZK_JSON_ARRAY);
    assert_int_equal(v->count, 5);
    assert_string_equal(v->items[0]->string, "a\"b\\c\n\x01/\xc3\xa9");
    assert_true(v->items[1]->integer == INT64_MIN);
    assert_true(v->items[2]->integer == INT64_MAX);
    assert_int_equal(v->items[4]->type, GR_ZK_JSON_ARRAY);
    assert_int_equal(v->items[4]->count, 0);
    gr_zk_json_free(v);
    gr_zk_json_writer_fini(&w);
}

static void test_writer_misuse(void **state)
{
    (void)state;
    const char *text;
    size_t len;
    gr_zk_json_writer_t w;

    gr_zk_json_writer_init(&w); /* value in an object without a key */
    gr_zk_json_object_begin(&w);
    gr_zk_json_int(&w, 1);
    gr_zk_json_object_end(&w);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* key in an array */
    gr_zk_json_array_begin(&w);
    gr_zk_json_key(&w, "k");
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* key without a value */
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "k");
    gr_zk_json_object_end(&w);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* mismatched end, then unfinished */
    gr_zk_json_object_begin(&w);
    gr_zk_json_array_end(&w);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* unbalanced */
    gr_zk_json_array_begin(&w);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* two top-level values */
    gr_zk_json_int(&w, 1);
    gr_zk_json_int(&w, 2);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* nothing */
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);

    gr_zk_json_writer_init(&w); /* too deep */
    for (int i = 0; i <= GR_ZK_JSON_MAX_DEPTH; i++)
        gr_zk_json_array_begin(&w);
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), -EINVAL);
    gr_zk_json_writer_fini(&w);
}

static void test_parse_assignment(void **state)
{
    (void)state;
    gr_zk_json_t *v = NULL;
    assert_int_equal(gr_zk_json_parse(assignment, strlen(assignment), &v), 0);
    assert_int_equal(v->type, GR_ZK_JSON_OBJECT);
    assert_int_equal(v->count, 5);
    assert_string_equal(v->keys[0], "partitions");
    const gr_zk_json_t *parts = gr_zk_json_find(v, "partitions");
    assert_non_null(parts);
    assert_int_equal(parts->count, 2);
    const gr_zk_json_t *p1 = gr_zk_json_find(parts, "1");
    assert_int_equal(p1->type, GR_ZK_JSON_ARRAY);
    assert_int_equal(p1->count, 2);
    assert_int_equal(p1->items[1]->integer, 2);
    const gr_zk_json_t *id = gr_zk_json_find(v, "topic_id");
    assert_int_equal(id->type, GR_ZK_JSON_STRING);
    assert_int_equal(id->string_len, 22);
    assert_int_equal(gr_zk_json_find(v, "version")->integer, 3);
    assert_null(gr_zk_json_find(v, "missing"));
    assert_null(gr_zk_json_find(id, "x")); /* not an object */
    gr_zk_json_free(v);
}

static void test_parse_literals_space_escapes(void **state)
{
    (void)state;
    static const char text[] =
        " \t\r\n{ \"t\" : true , \"f\":false,\"n\" :null,"
        "\"s\":\"\\u00e9\\ud83d\\ude00\\u0000\\/\\b\\f\\r\\t\",\"i\":-0 } \n";
    gr_zk_json_t *v = NULL;
    assert_int_equal(gr_zk_json_parse(text, strlen(text), &v), 0);
    assert_int_equal(gr_zk_json_find(v, "t")->type, GR_ZK_JSON_BOOL);
    assert_true(gr_zk_json_find(v, "t")->boolean);
    assert_false(gr_zk_json_find(v, "f")->boolean);
    assert_int_equal(gr_zk_json_find(v, "n")->type, GR_ZK_JSON_NULL);
    const gr_zk_json_t *s = gr_zk_json_find(v, "s");
    static const char want[] = "\xc3\xa9\xf0\x9f\x98\x80\0/\b\f\r\t";
    assert_int_equal(s->string_len, sizeof want - 1);
    assert_memory_equal(s->string, want, sizeof want - 1);
    assert_int_equal(gr_zk_json_find(v, "i")->integer, 0);
    gr_zk_json_free(v);
}

static void test_parse_rejects_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "   ",
        "{",
        "}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{,}",
        "{1:2}",
        "{'a':1}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1,\"a\":2}",
        "{\"a\\u0000b\":1}",
        "[1,]",
        "[,1]",
        "[1 2]",
        "01",
        "-01",
        "1.5",
        "1e3",
        "2E1",
        "-",
        "+1",
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999",
        "\"abc",
        "\"abc\\\"",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"\\ud800\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "\"a\nb\"",
        "\"\t\"",
        "tru",
        "nul",
        "falsey",
        "[1] x",
        "1 2",
        "{}{}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_zk_json_t *v = NULL;
        int rc = gr_zk_json_parse(bad[i], strlen(bad[i]), &v);
        if (rc != -EINVAL)
            fail_msg("accepted or wrong error %d for \"%s\"", rc, bad[i]);
        assert_null(v);
    }
    gr_zk_json_t *max = NULL;
    assert_int_equal(gr_zk_json_parse("9223372036854775807", 19, &max), 0);
    assert_true(max->integer == INT64_MAX);
    gr_zk_json_free(max);
}

static void test_parse_bounds(void **state)
{
    (void)state;
    gr_zk_json_t *v = NULL;
    assert_int_equal(gr_zk_json_parse("-9223372036854775808", 20, &v), 0);
    assert_true(v->integer == INT64_MIN);
    gr_zk_json_free(v);
    /* Only len bytes are read: the text need not be NUL-terminated. */
    assert_int_equal(gr_zk_json_parse("12345", 2, &v), 0);
    assert_int_equal(v->integer, 12);
    gr_zk_json_free(v);

    char deep[2 * (GR_ZK_JSON_MAX_DEPTH + 1) + 1];
    for (int n = GR_ZK_JSON_MAX_DEPTH; n <= GR_ZK_JSON_MAX_DEPTH + 1; n++) {
        memset(deep, '[', (size_t)n);
        memset(deep + n, ']', (size_t)n);
        v = NULL;
        int rc = gr_zk_json_parse(deep, 2 * (size_t)n, &v);
        assert_int_equal(rc, n > GR_ZK_JSON_MAX_DEPTH ? -EINVAL : 0);
        gr_zk_json_free(v);
    }
}

static void test_parse_prefixes_fail(void **state)
{
    (void)state;
    size_t n = strlen(assignment);
    for (size_t len = 0; len < n; len++) {
        gr_zk_json_t *v = NULL;
        assert_int_equal(gr_zk_json_parse(assignment, len, &v), -EINVAL);
        assert_null(v);
    }
}

static void test_uuid(void **state)
{
    (void)state;
    gr_uuid_t id;
    for (int i = 0; i < 16; i++)
        id.b[i] = (uint8_t)i;
    char text[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(id, text);
    assert_string_equal(text, "AAECAwQFBgcICQoLDA0ODw");
    gr_uuid_t back;
    assert_int_equal(gr_uuid_parse(text, strlen(text), &back), 0);
    assert_memory_equal(back.b, id.b, 16);

    memset(id.b, 0xff, sizeof id.b);
    gr_uuid_format(id, text);
    assert_string_equal(text, "_____________________w");
    assert_int_equal(gr_uuid_parse(text, 22, &back), 0);
    assert_memory_equal(back.b, id.b, 16);

    assert_int_equal(gr_uuid_parse("AAECAwQFBgcICQoLDA0OD", 21, &back), -EINVAL);
    assert_int_equal(gr_uuid_parse("AAECAwQFBgcICQoLDA0ODwA", 23, &back), -EINVAL);
    assert_int_equal(gr_uuid_parse("AAECAwQFBgcICQoLDA0O+w", 22, &back), -EINVAL);
    assert_int_equal(gr_uuid_parse("AAECAwQFBgcICQoLDA0OD=", 22, &back), -EINVAL);
    /* Non-zero bits after the 128th: not the canonical form. */
    assert_int_equal(gr_uuid_parse("AAECAwQFBgcICQoLDA0ODx", 22, &back), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_kafka_layout),
        cmocka_unit_test(test_writer_escapes_and_ints),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_parse_assignment),
        cmocka_unit_test(test_parse_literals_space_escapes),
        cmocka_unit_test(test_parse_rejects_malformed),
        cmocka_unit_test(test_parse_bounds),
        cmocka_unit_test(test_parse_prefixes_fail),
        cmocka_unit_test(test_uuid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
