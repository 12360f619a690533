/* SPDX-License-Identifier: Apache-2.0 */
/*
 * security/acl and security/acl_znode: the access decision (literal,
 * prefixed and wildcard patterns, DENY over ALLOW, implied operations,
 * hosts, principals, super users, allow.everyone.if.no.acl.found), filters,
 * validation, and Kafka's znode and change-notification formats.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "security/acl.h"
#include "security/acl_znode.h"

#define HOST_A "10.0.0.1"
#define HOST_B "10.0.0.2"

static void add(gr_acl_set_t *set, gr_acl_resource_type_t type, gr_acl_pattern_t pattern,
                const char *name, const char *principal, const char *host, gr_acl_operation_t op,
                gr_acl_permission_t perm)
{
    gr_acl_binding_t a = {
        .type = type, .pattern = pattern, .name = (char *)name, .op = op, .permission = perm};
    snprintf(a.principal, sizeof a.principal, "%s", principal);
    snprintf(a.host, sizeof a.host, "%s", host);
    assert_int_equal(gr_acl_set_add(set, &a), 0);
}

static bool may(const gr_acl_policy_t *p, const gr_acl_set_t *set, const char *principal,
                const char *host, gr_acl_operation_t op, gr_acl_resource_type_t type,
                const char *name)
{
    gr_acl_query_t q = {principal, host, op, type, name, strlen(name)};
    return gr_acl_decide(p, set, &q);
}

#define TOPIC GR_ACL_RESOURCE_TYPE_TOPIC
#define GROUP GR_ACL_RESOURCE_TYPE_GROUP
#define LIT   GR_ACL_PATTERN_LITERAL
#define PRE   GR_ACL_PATTERN_PREFIXED
#define ALLOW GR_ACL_PERMISSION_ALLOW
#define DENY  GR_ACL_PERMISSION_DENY

static void test_literal_prefixed_wildcard(void **state)
{
    (void)state;
    gr_acl_policy_t p = {0};
    gr_acl_set_t set = {0};
    add(&set, TOPIC, LIT, "orders", "User:alice", "*", GR_ACL_OPERATION_READ, ALLOW);
    add(&set, TOPIC, PRE, "logs-", "User:bob", "*", GR_ACL_OPERATION_WRITE, ALLOW);
    add(&set, GROUP, LIT, "*", "User:*", "*", GR_ACL_OPERATION_READ, ALLOW);
    assert_true(may(&p, &set, "User:alice", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "orders"));
    assert_false(may(&p, &set, "User:alice", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "orders2"));
    assert_false(may(&p, &set, "User:bob", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "orders"));
    assert_true(may(&p, &set, "User:bob", HOST_A, GR_ACL_OPERATION_WRITE, TOPIC, "logs-app"));
    assert_true(may(&p, &set, "User:bob", HOST_A, GR_ACL_OPERATION_WRITE, TOPIC, "logs-"));
    assert_false(may(&p, &set, "User:bob", HOST_A, GR_ACL_OPERATION_WRITE, TOPIC, "logs"));
    assert_true(may(&p, &set, "User:carol", HOST_A, GR_ACL_OPERATION_READ, GROUP, "any-group"));
    /* A topic named like a group gets nothing from the group's ACLs. */
    assert_false(may(&p, &set, "User:carol", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "any-group"));
    gr_acl_set_clear(&set);
}

static void test_deny_wins_and_all(void **state)
{
    (void)state;
    gr_acl_policy_t p = {0};
    gr_acl_set_t set = {0};
    add(&set, TOPIC, PRE, "", "User:*", "*", GR_ACL_OPERATION_ALL, ALLOW);
    add(&set, TOPIC, PRE, "secret", "User:eve", "*", GR_ACL_OPERATION_READ, DENY);
    assert_true(may(&p, &set, "User:eve", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "public"));
    assert_false(may(&p, &set, "User:eve", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "secret-1"));
    /* The DENY is for READ only: WRITE and the implied DESCRIBE stay allowed. */
    assert_true(may(&p, &set, "User:eve", HOST_A, GR_ACL_OPERATION_WRITE, TOPIC, "secret-1"));
    assert_true(may(&p, &set, "User:eve", HOST_A, GR_ACL_OPERATION_DESCRIBE, TOPIC, "secret"));
    add(&set, TOPIC, LIT, "*", "User:eve", "*", GR_ACL_OPERATION_ALL, DENY);
    assert_false(may(&p, &set, "User:eve", HOST_A, GR_ACL_OPERATION_DESCRIBE, TOPIC, "public"));
    assert_true(may(&p, &set, "User:adam", HOST_A, GR_ACL_OPERATION_DESCRIBE, TOPIC, "public"));
    gr_acl_set_clear(&set);
}

static void test_implied_operations(void **state)
{
    (void)state;
    gr_acl_policy_t p = {0};
    gr_acl_set_t set = {0};
    const gr_acl_operation_t implying[] = {GR_ACL_OPERATION_READ, GR_ACL_OPERATION_WRITE,
                                           GR_ACL_OPERATION_DELETE, GR_ACL_OPERATION_ALTER};
    for (size_t i = 0; i < sizeof implying / sizeof implying[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%zu", i);
        add(&set, TOPIC, LIT, name, "User:u", "*", implying[i], ALLOW);
        assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_DESCRIBE, TOPIC, name));
        assert_false(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_CREATE, TOPIC, name));
    }
    add(&set, TOPIC, LIT, "c", "User:u", "*", GR_ACL_OPERATION_ALTER_CONFIGS, ALLOW);
    assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_DESCRIBE_CONFIGS, TOPIC, "c"));
    assert_false(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_ALTER, TOPIC, "c"));
    /* DESCRIBE implies nothing. */
    add(&set, TOPIC, LIT, "d", "User:u", "*", GR_ACL_OPERATION_DESCRIBE, ALLOW);
    assert_false(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "d"));
    gr_acl_query_t q = {"User:u", HOST_A, GR_ACL_OPERATION_ANY, TOPIC, "c", 1};
    assert_int_equal(gr_acl_authorized_ops(&p, &set, &q),
                     1 << GR_ACL_OPERATION_ALTER_CONFIGS | 1 << GR_ACL_OPERATION_DESCRIBE_CONFIGS);
    gr_acl_set_clear(&set);
}

static void test_hosts(void **state)
{
    (void)state;
    gr_acl_policy_t p = {0};
    gr_acl_set_t set = {0};
    add(&set, TOPIC, LIT, "t", "User:u", HOST_A, GR_ACL_OPERATION_READ, ALLOW);
    assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    assert_false(may(&p, &set, "User:u", HOST_B, GR_ACL_OPERATION_READ, TOPIC, "t"));
    add(&set, TOPIC, LIT, "t", "User:u", HOST_B, GR_ACL_OPERATION_READ, DENY);
    add(&set, TOPIC, LIT, "t", "User:u", "*", GR_ACL_OPERATION_READ, ALLOW);
    assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    assert_false(may(&p, &set, "User:u", HOST_B, GR_ACL_OPERATION_READ, TOPIC, "t"));
    gr_acl_set_clear(&set);
}

static void test_super_users_and_no_acl(void **state)
{
    (void)state;
    const char *supers[] = {"User:admin"};
    gr_acl_policy_t p = {.super_users = supers, .super_user_count = 1};
    gr_acl_set_t set = {0};
    assert_true(may(&p, &set, "User:admin", HOST_A, GR_ACL_OPERATION_ALTER, TOPIC, "t"));
    assert_false(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    p.allow_if_no_acl = true;
    assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    /* An ACL for someone else on the resource: no longer "no ACL found". */
    add(&set, TOPIC, LIT, "t", "User:bob", "*", GR_ACL_OPERATION_READ, ALLOW);
    assert_false(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    assert_true(may(&p, &set, "User:u", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "other"));
    /* Super users pass even a DENY. */
    add(&set, TOPIC, LIT, "t", "User:admin", "*", GR_ACL_OPERATION_ALL, DENY);
    assert_true(may(&p, &set, "User:admin", HOST_A, GR_ACL_OPERATION_READ, TOPIC, "t"));
    gr_acl_set_clear(&set);
}

static void test_filters(void **state)
{
    (void)state;
    gr_acl_set_t set = {0};
    add(&set, TOPIC, LIT, "orders", "User:a", "*", GR_ACL_OPERATION_READ, ALLOW);
    add(&set, TOPIC, LIT, "*", "User:a", "*", GR_ACL_OPERATION_READ, ALLOW);
    add(&set, TOPIC, PRE, "ord", "User:b", "*", GR_ACL_OPERATION_WRITE, DENY);
    gr_acl_filter_t any = {GR_ACL_RESOURCE_TYPE_ANY, GR_ACL_PATTERN_ANY,   NULL, 0, NULL, NULL,
                           GR_ACL_OPERATION_ANY,     GR_ACL_PERMISSION_ANY};
    gr_acl_filter_t f = any;
    for (size_t i = 0; i < set.count; i++)
        assert_true(gr_acl_filter_matches(&f, &set.items[i]));
    f.name = "orders";
    f.name_len = strlen(f.name);
    assert_true(gr_acl_filter_matches(&f, &set.items[0]));
    assert_false(gr_acl_filter_matches(&f, &set.items[1]));
    assert_false(gr_acl_filter_matches(&f, &set.items[2]));
    f.pattern = GR_ACL_PATTERN_MATCH;
    for (size_t i = 0; i < set.count; i++)
        assert_true(gr_acl_filter_matches(&f, &set.items[i]));
    f.principal = "User:b";
    assert_false(gr_acl_filter_matches(&f, &set.items[0]));
    assert_true(gr_acl_filter_matches(&f, &set.items[2]));
    f = any;
    f.pattern = GR_ACL_PATTERN_PREFIXED;
    assert_false(gr_acl_filter_matches(&f, &set.items[0]));
    assert_true(gr_acl_filter_matches(&f, &set.items[2]));
    f.pattern = GR_ACL_PATTERN_UNKNOWN;
    assert_non_null(gr_acl_filter_invalid(&f));
    assert_null(gr_acl_filter_invalid(&any));
    gr_acl_set_clear(&set);
}

static void test_validation(void **state)
{
    (void)state;
    gr_acl_binding_t a = {.type = TOPIC,
                          .pattern = LIT,
                          .name = "t",
                          .principal = "User:a",
                          .host = "*",
                          .op = GR_ACL_OPERATION_READ,
                          .permission = ALLOW};
    assert_null(gr_acl_binding_invalid(&a));
    a.pattern = GR_ACL_PATTERN_MATCH;
    assert_non_null(gr_acl_binding_invalid(&a));
    a.pattern = PRE;
    a.op = GR_ACL_OPERATION_CLUSTER_ACTION; /* not a topic operation */
    assert_non_null(gr_acl_binding_invalid(&a));
    a.op = GR_ACL_OPERATION_ALL;
    snprintf(a.principal, sizeof a.principal, "alice");
    assert_non_null(gr_acl_binding_invalid(&a));
    snprintf(a.principal, sizeof a.principal, "User:alice");
    a.type = GR_ACL_RESOURCE_TYPE_CLUSTER;
    assert_non_null(gr_acl_binding_invalid(&a));
    a.pattern = LIT;
    a.name = GR_ACL_CLUSTER_NAME;
    assert_null(gr_acl_binding_invalid(&a));
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gr_acl_op_znode(GR_ACL_OPERATION_DESCRIBE_CONFIGS), "DescribeConfigs");
    assert_string_equal(gr_acl_op_name(GR_ACL_OPERATION_IDEMPOTENT_WRITE), "IDEMPOTENT_WRITE");
    assert_int_equal(gr_acl_op_parse("ClusterAction"), GR_ACL_OPERATION_CLUSTER_ACTION);
    assert_int_equal(gr_acl_op_parse("cluster_action"), GR_ACL_OPERATION_CLUSTER_ACTION);
    assert_int_equal(gr_acl_op_parse("Reads"), GR_ACL_OPERATION_UNKNOWN);
    assert_int_equal(gr_acl_resource_type_parse("TransactionalId"),
                     GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID);
    assert_int_equal(gr_acl_pattern_parse("prefixed"), PRE);
    assert_int_equal(gr_acl_permission_parse("Deny"), DENY);
}

static const char kafka_node[] =
    "{\"version\":1,\"acls\":[{\"principal\":\"User:alice\",\"permissionType\":\"Allow\","
    "\"operation\":\"Read\",\"host\":\"*\"},{\"principal\":\"User:bob\",\"permissionType\":"
    "\"Deny\",\"operation\":\"DescribeConfigs\",\"host\":\"10.0.0.1\"}]}";

static void test_znode_round_trip(void **state)
{
    (void)state;
    gr_acl_set_t set = {0};
    assert_int_equal(
        gr_acl_znode_decode(kafka_node, strlen(kafka_node), TOPIC, LIT, "orders", &set), 0);
    assert_int_equal(set.count, 2);
    assert_string_equal(set.items[1].principal, "User:bob");
    assert_int_equal(set.items[1].op, GR_ACL_OPERATION_DESCRIBE_CONFIGS);
    assert_int_equal(set.items[1].permission, DENY);
    assert_string_equal(set.items[1].host, HOST_A);
    add(&set, TOPIC, LIT, "other", "User:c", "*", GR_ACL_OPERATION_READ, ALLOW);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_acl_znode_encode(&set, TOPIC, LIT, "orders", &w), 0);
    const char *text;
    size_t len;
    assert_int_equal(gr_zk_json_writer_finish(&w, &text, &len), 0);
    assert_string_equal(text, kafka_node);
    gr_zk_json_writer_fini(&w);
    gr_acl_set_clear(&set);
    assert_int_equal(gr_acl_znode_decode("{\"version\":1}", 13, TOPIC, LIT, "x", &set), -EINVAL);
    assert_int_equal(gr_acl_znode_decode("{\"acls\":[", 9, TOPIC, LIT, "x", &set), -EINVAL);
    gr_acl_set_clear(&set);
}

static void test_paths_and_changes(void **state)
{
    (void)state;
    char path[256], data[256], name[64];
    size_t len;
    assert_int_equal(gr_acl_znode_path(TOPIC, LIT, "t", path, sizeof path), 0);
    assert_string_equal(path, "/kafka-acl/Topic/t");
    assert_int_equal(
        gr_acl_znode_path(GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, PRE, "tx-", path, sizeof path), 0);
    assert_string_equal(path, "/kafka-acl-extended/prefixed/TransactionalId/tx-");
    assert_int_equal(gr_acl_znode_path(TOPIC, LIT, "a/b", path, sizeof path), -EINVAL);
    assert_int_equal(gr_acl_change_encode(GROUP, LIT, "g", data, sizeof data, &len), 0);
    assert_string_equal(data, "GROUP:g");
    gr_acl_resource_type_t type;
    gr_acl_pattern_t pattern;
    assert_int_equal(gr_acl_change_decode("Topic:a:b", 9, LIT, &type, &pattern, name, sizeof name),
                     0);
    assert_int_equal(type, TOPIC);
    assert_string_equal(name, "a:b");
    assert_int_equal(gr_acl_change_encode(TOPIC, PRE, "p-", data, sizeof data, &len), 0);
    assert_string_equal(data, "{\"version\":1,\"resourceType\":\"TOPIC\",\"name\":\"p-\","
                              "\"patternType\":\"PREFIXED\"}");
    assert_int_equal(gr_acl_change_decode(data, len, PRE, &type, &pattern, name, sizeof name), 0);
    assert_int_equal(pattern, PRE);
    assert_string_equal(name, "p-");
    assert_int_equal(gr_acl_change_decode("Nope:x", 6, LIT, &type, &pattern, name, sizeof name),
                     -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literal_prefixed_wildcard),
        cmocka_unit_test(test_deny_wins_and_all),
        cmocka_unit_test(test_implied_operations),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_super_users_and_no_acl),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_znode_round_trip),
        cmocka_unit_test(test_paths_and_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
