/* SPDX-License-Identifier: Apache-2.0 */
/* Transaction markers: built, parsed back, and bad ones refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/control_batch.h"

static void build_marker(gr_writer_t *w, bool commit, gr_batch_header_t *h)
{
    gr_writer_init(w);
    assert_int_equal(gr_control_batch_build(w, 4242, 7, 13, commit, 1700000000000LL), 0);
    assert_int_equal(gr_batch_header_parse(w->buf, w->len, h), 0);
    assert_true(gr_batch_crc_ok(w->buf, w->len));
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int commit = 0; commit <= 1; commit++) {
        gr_writer_t w;
        gr_batch_header_t h;
        build_marker(&w, commit, &h);
        assert_true(gr_batch_is_control(&h));
        assert_true(gr_batch_is_transactional(&h));
        assert_int_equal(h.producer_id, 4242);
        assert_int_equal(h.producer_epoch, 7);
        assert_int_equal(h.base_sequence, -1);
        assert_int_equal(h.records_count, 1);
        assert_int_equal(h.max_timestamp, 1700000000000LL);
        gr_control_marker_t m;
        assert_int_equal(gr_control_batch_parse(w.buf, w.len, &h, &m), 0);
        assert_int_equal(m.type, commit ? GR_CONTROL_TYPE_COMMIT : GR_CONTROL_TYPE_ABORT);
        assert_int_equal(m.coordinator_epoch, 13);
        gr_writer_fini(&w);
    }
}

static void test_refused(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_batch_header_t h;
    gr_control_marker_t m;
    build_marker(&w, true, &h);
    gr_batch_header_t data = h;
    data.attributes &= (int16_t)~GR_BATCH_ATTR_CONTROL;
    assert_int_equal(gr_control_batch_parse(w.buf, w.len, &data, &m), -EBADMSG);
    /* Cut inside the record: no well-formed key. */
    assert_int_equal(gr_control_batch_parse(w.buf, GR_RECORD_BATCH_HEADER_SIZE + 3, &h, &m),
                     -EBADMSG);
    gr_batch_header_t none = h;
    none.records_count = 0;
    assert_int_equal(gr_control_batch_parse(w.buf, w.len, &none, &m), -EBADMSG);
    gr_writer_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
