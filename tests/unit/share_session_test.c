/* SPDX-License-Identifier: Apache-2.0 */
/* Share sessions (share/share_session.h): Kafka's epoch rules, the cap,
 * partitions accumulating and forgotten, sessions ending with their
 * connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "share/share_session.h"

static gr_uuid_t topic(uint8_t n)
{
    gr_uuid_t id = {{0}};
    id.b[15] = n;
    return id;
}

static void test_epochs(void **state)
{
    (void)state;
    gr_share_sessions_t *s = gr_share_sessions_new(0, NULL, NULL);
    gr_share_session_t *session = NULL, *again = NULL;
    gr_str_t g = gr_str("g"), m = gr_str("m");
    assert_int_equal(gr_share_sessions_check(s, g, m, 1, &session),
                     GR_KERR_SHARE_SESSION_NOT_FOUND);
    assert_int_equal(gr_share_sessions_check(s, g, m, -1, &session),
                     GR_KERR_SHARE_SESSION_NOT_FOUND);
    assert_int_equal(gr_share_sessions_open(s, g, m, NULL, &session), GR_KERR_NONE);
    assert_int_equal(session->epoch, 1);
    assert_int_equal(gr_share_sessions_check(s, g, m, 2, &again),
                     GR_KERR_INVALID_SHARE_SESSION_EPOCH);
    assert_int_equal(gr_share_sessions_check(s, g, m, 1, &again), GR_KERR_NONE);
    assert_ptr_equal(again, session);
    assert_int_equal(session->epoch, 2);
    /* -1 matches any epoch and does not move it. */
    assert_int_equal(gr_share_sessions_check(s, g, m, -1, &again), GR_KERR_NONE);
    assert_int_equal(session->epoch, 2);
    session->epoch = INT32_MAX;
    assert_int_equal(gr_share_sessions_check(s, g, m, INT32_MAX, &again), GR_KERR_NONE);
    assert_int_equal(session->epoch, 1);
    /* Another member of the group, and the same member of another group, are other sessions. */
    assert_int_equal(gr_share_sessions_check(s, gr_str("h"), m, 1, &again),
                     GR_KERR_SHARE_SESSION_NOT_FOUND);
    assert_int_equal(gr_share_sessions_check(s, g, gr_str("n"), 1, &again),
                     GR_KERR_SHARE_SESSION_NOT_FOUND);
    /* Epoch 0 again replaces the session. */
    assert_int_equal(gr_share_sessions_open(s, g, m, NULL, &again), GR_KERR_NONE);
    assert_int_equal(gr_share_sessions_count(s), 1);
    gr_share_sessions_remove(s, again);
    assert_null(gr_share_sessions_find(s, g, m));
    gr_share_sessions_free(s);
}

static void test_limit(void **state)
{
    (void)state;
    gr_share_sessions_t *s = gr_share_sessions_new(2, NULL, NULL);
    gr_share_session_t *session;
    assert_int_equal(gr_share_sessions_open(s, gr_str("g"), gr_str("a"), NULL, &session), 0);
    assert_int_equal(gr_share_sessions_open(s, gr_str("g"), gr_str("b"), NULL, &session), 0);
    assert_int_equal(gr_share_sessions_open(s, gr_str("g"), gr_str("c"), NULL, &session),
                     GR_KERR_SHARE_SESSION_LIMIT_REACHED);
    /* A member reopening its own session takes its own place. */
    assert_int_equal(gr_share_sessions_open(s, gr_str("g"), gr_str("b"), NULL, &session), 0);
    gr_share_sessions_free(s);
}

static void test_partitions(void **state)
{
    (void)state;
    gr_share_sessions_t *s = gr_share_sessions_new(0, NULL, NULL);
    gr_share_session_t *session;
    assert_int_equal(gr_share_sessions_open(s, gr_str("g"), gr_str("m"), NULL, &session), 0);
    for (int i = 0; i < 20; i++)
        assert_int_equal(gr_share_session_add(session, topic(1), i), 0);
    assert_int_equal(gr_share_session_add(session, topic(1), 3), 0);
    assert_int_equal(gr_share_session_add(session, topic(2), 3), 0);
    assert_int_equal(session->partition_count, 21);
    gr_share_session_forget(session, topic(1), 3);
    gr_share_session_forget(session, topic(3), 3);
    assert_int_equal(session->partition_count, 20);
    for (int32_t i = 0; i < session->partition_count; i++)
        assert_false(session->partitions[i].partition == 3 &&
                     session->partitions[i].topic_id.b[15] == 1);
    gr_share_sessions_free(s);
}

static int closed_count;

static void on_close(void *arg, const gr_share_session_t *session)
{
    assert_ptr_equal(arg, &closed_count);
    assert_ptr_equal(session->conn, (void *)&test_epochs);
    closed_count++;
}

static void test_connection_closed(void **state)
{
    (void)state;
    gr_share_sessions_t *s = gr_share_sessions_new(0, on_close, &closed_count);
    const void *conn = (void *)&test_epochs, *other = (void *)&test_limit;
    gr_share_session_t *session;
    char member[8];
    for (int i = 0; i < 10; i++) {
        snprintf(member, sizeof member, "m%d", i);
        assert_int_equal(
            gr_share_sessions_open(s, gr_str("g"), gr_str(member), i % 2 ? conn : other, &session),
            0);
    }
    gr_share_sessions_conn_closed(s, conn);
    assert_int_equal(closed_count, 5);
    assert_int_equal(gr_share_sessions_count(s), 5);
    assert_null(gr_share_sessions_find(s, gr_str("g"), gr_str("m1")));
    assert_non_null(gr_share_sessions_find(s, gr_str("g"), gr_str("m2")));
    gr_share_sessions_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_partitions),
        cmocka_unit_test(test_connection_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
