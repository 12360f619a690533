/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus text writer: family headers, labels and their escapes, numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

static void expect_text(gr_writer_t *w, const char *want)
{
    assert_int_equal(w->err, 0);
    assert_int_equal(w->len, strlen(want));
    assert_memory_equal(w->buf, want, w->len);
}

static void test_family_and_plain_sample(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_prom_family(&w, "kafka_x_total", GR_PROM_COUNTER, "Things.");
    gr_prom_sample_u64(&w, "kafka_x_total", NULL, NULL, 0, 18446744073709551615ull);
    expect_text(&w, "# HELP kafka_x_total Things.\n# TYPE kafka_x_total counter\n"
                    "kafka_x_total 18446744073709551615\n");
    gr_writer_fini(&w);
}

static void test_labels_are_escaped(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_prom_label_t labels[] = {GR_PROM_LABEL("topic", "a\"b\\c\nd"),
                                {.name = "partition", .value = "12345", .value_len = 2}};
    gr_prom_sample(&w, "m", "_count", labels, 2, 3);
    expect_text(&w, "m_count{topic=\"a\\\"b\\\\c\\nd\",partition=\"12\"} 3\n");
    gr_writer_fini(&w);
}

static void test_numbers(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_prom_sample(&w, "a", NULL, NULL, 0, 0.25);
    gr_prom_sample(&w, "b", NULL, NULL, 0, -7);
    gr_prom_sample(&w, "c", NULL, NULL, 0, NAN);
    gr_prom_sample(&w, "d", "_bucket", &GR_PROM_LABEL("le", "+Inf"), 1, INFINITY);
    gr_prom_sample(&w, "e", NULL, NULL, 0, 1e20);
    expect_text(&w, "a 0.25\nb -7\nc NaN\nd_bucket{le=\"+Inf\"} +Inf\ne 1e+20\n");
    gr_writer_fini(&w);
}

static void test_process_collector(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_metrics_collect_process(NULL, &w);
    gr_write_raw(&w, "", 1);
    assert_int_equal(w.err, 0);
    const char *page = (const char *)w.buf;
    assert_non_null(strstr(page, "# TYPE process_cpu_seconds_total counter\n"));
    assert_non_null(strstr(page, "\nprocess_resident_memory_bytes "));
    assert_non_null(strstr(page, "\nprocess_open_fds "));
    assert_non_null(strstr(page, "\nprocess_start_time_seconds 1"));
    gr_writer_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_and_plain_sample),
        cmocka_unit_test(test_labels_are_escaped),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_process_collector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
