/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the per-logger thresholds: lookup, set/unset, root, the levels key, the fast no. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/logging.h"

static void test_find(void **state)
{
    gr_logger_t log;
    (void)state;
    gr_logger_init(&log, NULL, GR_LOG_INFO);
    assert_int_equal(gr_logger_find(&log, "root", 4), GR_LOGGER_ROOT);
    assert_string_equal(gr_logger_name(GR_LOGGER_ROOT), "root");
    /* Every logger of the table is found under its own name, and only it. */
    for (int id = 0; id < gr_logger_count(); id++) {
        const char *name = gr_logger_name(id);
        assert_int_equal(gr_logger_find(&log, name, strlen(name)), id);
    }
    assert_int_equal(gr_logger_find(&log, "netx", 4), -1);
    assert_int_equal(gr_logger_find(&log, "ne", 2), -1);
    assert_int_equal(gr_logger_find(&log, "net", 3) >= 0, 1);
    assert_int_equal(gr_logger_find(&log, "NET", 3), -1); /* names are lower case, as written */
    assert_int_equal(gr_logger_find(&log, "", 0), -1);
    assert_int_equal(gr_logger_find(&log, NULL, 0), -1);
}

static void test_thresholds(void **state)
{
    gr_logger_t log;
    (void)state;
    gr_logger_init(&log, stderr, GR_LOG_INFO);
    int net = gr_logger_find(&log, "net", 3), replica = gr_logger_find(&log, "replica", 7);
    assert_false(gr_log_enabled(&log, GR_LOG_DEBUG)); /* the fast no */
    assert_false(gr_log_enabled_for(&log, GR_LOG_DEBUG, "net"));
    assert_false(gr_logger_level_is_set(&log, net));

    gr_logger_set_level(&log, net, GR_LOG_DEBUG);
    assert_true(gr_logger_level_is_set(&log, net));
    assert_true(gr_log_enabled(&log, GR_LOG_DEBUG));
    assert_true(gr_log_enabled_for(&log, GR_LOG_DEBUG, "net"));
    assert_false(gr_log_enabled_for(&log, GR_LOG_TRACE, "net"));
    assert_false(gr_log_enabled_for(&log, GR_LOG_DEBUG, "replica"));
    assert_false(gr_log_enabled_for(&log, GR_LOG_DEBUG, "not-a-logger")); /* follows root */

    /* A logger quieter than root hides its INFO lines. */
    gr_logger_set_level(&log, replica, GR_LOG_WARN);
    assert_false(gr_log_enabled_for(&log, GR_LOG_INFO, "replica"));
    assert_true(gr_log_enabled_for(&log, GR_LOG_WARN, "replica"));

    /* Root moves the loggers that follow it, not those with their own. */
    gr_logger_set_level(&log, GR_LOGGER_ROOT, GR_LOG_TRACE);
    assert_true(gr_log_enabled_for(&log, GR_LOG_TRACE, "log"));
    assert_int_equal(gr_logger_level(&log, net), GR_LOG_DEBUG);
    assert_int_equal(gr_logger_level(&log, replica), GR_LOG_WARN);

    gr_logger_unset_level(&log, net);
    assert_int_equal(gr_logger_level(&log, net), GR_LOG_TRACE);
    gr_logger_unset_level(&log, GR_LOGGER_ROOT); /* no effect: root keeps a level */
    assert_int_equal(gr_logger_level(&log, GR_LOGGER_ROOT), GR_LOG_TRACE);

    /* The fast no follows the most verbose logger down again. */
    gr_logger_set_level(&log, GR_LOGGER_ROOT, GR_LOG_INFO);
    assert_false(gr_log_enabled(&log, GR_LOG_DEBUG));
}

static void test_lines_follow_levels(void **state)
{
    gr_logger_t log;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;
    gr_logger_init(&log, f, GR_LOG_INFO);
    char err[128];
    assert_int_equal(gr_logger_apply_levels(&log, "net=DEBUG", err, sizeof err), 0);
    gr_logf(&log, GR_LOG_DEBUG, "net", "net debug shown");
    gr_logf(&log, GR_LOG_DEBUG, "log", "log debug hidden");
    gr_logf(&log, GR_LOG_INFO, "log", "log info shown");
    fclose(f);
    assert_non_null(strstr(buf, "DEBUG [net] net debug shown\n"));
    assert_non_null(strstr(buf, "INFO  [log] log info shown\n"));
    assert_null(strstr(buf, "hidden"));
    free(buf);
}

static void test_apply_levels(void **state)
{
    gr_logger_t log;
    char err[128];
    (void)state;
    gr_logger_init(&log, NULL, GR_LOG_INFO);
    int net = gr_logger_find(&log, "net", 3), replica = gr_logger_find(&log, "replica", 7);
    assert_int_equal(gr_logger_apply_levels(&log, "", err, sizeof err), 0);
    assert_int_equal(
        gr_logger_apply_levels(&log, " net = debug , replica=TRACE,root=warn,", err, sizeof err),
        0);
    assert_int_equal(gr_logger_level(&log, net), GR_LOG_DEBUG);
    assert_int_equal(gr_logger_level(&log, replica), GR_LOG_TRACE);
    assert_int_equal(gr_logger_level(&log, GR_LOGGER_ROOT), GR_LOG_WARN);
    /* All or nothing: a bad item changes no logger. */
    assert_int_equal(gr_logger_apply_levels(&log, "net=ERROR,bogus=INFO", err, sizeof err),
                     -EINVAL);
    assert_non_null(strstr(err, "unknown logger \"bogus\""));
    assert_int_equal(gr_logger_level(&log, net), GR_LOG_DEBUG);
    assert_int_equal(gr_logger_apply_levels(&log, "net=LOUD", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "\"LOUD\" is not a log level for net"));
    assert_int_equal(gr_logger_apply_levels(&log, "net", err, sizeof err), -EINVAL);
    assert_int_equal(gr_logger_apply_levels(NULL, "log=FATAL", err, sizeof err), 0);
    assert_int_equal(gr_logger_apply_levels(NULL, "log=verylongnotalevel", err, sizeof err),
                     -EINVAL);
}

/* The two keys: checked when the config loads, applied by gr_logger_configure. */
static void test_config_keys(void **state)
{
    gr_config_t cfg;
    gr_logger_t log;
    char err[256];
    (void)state;
    const char *bad_levels[] = {"log.dirs=/tmp/x", "gregor.log.levels=net=DEBUG,bogus=INFO"};
    assert_int_equal(gr_config_load(&cfg, NULL, bad_levels, 2, NULL, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "unknown logger \"bogus\""));
    const char *bad_format[] = {"log.dirs=/tmp/x", "gregor.log.format=xml"};
    assert_int_equal(gr_config_load(&cfg, NULL, bad_format, 2, NULL, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "gregor.log.format"));

    const char *good[] = {"log.dirs=/tmp/x", "broker.id=4", "gregor.log.format=json",
                          "gregor.log.levels=replica=TRACE,root=WARN"};
    assert_int_equal(gr_config_load(&cfg, NULL, good, 4, NULL, err, sizeof err), 0);
    gr_logger_init(&log, NULL, GR_LOG_INFO);
    gr_logger_configure(&log, &cfg);
    assert_int_equal(log.format, GR_LOG_FORMAT_JSON);
    assert_int_equal(atomic_load(&log.broker_id), 4);
    assert_int_equal(gr_logger_level(&log, gr_logger_find(&log, "replica", 7)), GR_LOG_TRACE);
    assert_int_equal(gr_logger_level(&log, GR_LOGGER_ROOT), GR_LOG_WARN);
    assert_int_equal(gr_logger_level(&log, gr_logger_find(&log, "net", 3)), GR_LOG_WARN);
    gr_config_fini(&cfg);

    /* The defaults: text, every logger at the level given to init. */
    assert_int_equal(gr_config_load(&cfg, NULL, good, 1, NULL, err, sizeof err), 0);
    gr_logger_init(&log, NULL, GR_LOG_INFO);
    gr_logger_configure(&log, &cfg);
    assert_int_equal(log.format, GR_LOG_FORMAT_TEXT);
    assert_int_equal(gr_logger_level(&log, GR_LOGGER_ROOT), GR_LOG_INFO);
    gr_config_fini(&cfg);
}

#define THREAD_LINES 2000

static void *log_lines(void *arg)
{
    const gr_logger_t *log = arg;
    for (int i = 0; i < THREAD_LINES; i++) {
        gr_logf(log, GR_LOG_DEBUG, "net", "debug %d", i);
        gr_logf(log, GR_LOG_INFO, "net", "info %d", i);
    }
    return NULL;
}

/* Worker threads log while the loop thread changes levels: every line whole, INFO never lost. */
static void test_threads_while_levels_change(void **state)
{
    gr_logger_t log;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pthread_t threads[2];
    (void)state;
    gr_logger_init(&log, f, GR_LOG_INFO);
    gr_logger_set_format(&log, GR_LOG_FORMAT_JSON);
    int net = gr_logger_find(&log, "net", 3);
    for (int t = 0; t < 2; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, log_lines, &log), 0);
    for (int i = 0; i < THREAD_LINES; i++) {
        if (i % 2)
            gr_logger_set_level(&log, net, GR_LOG_DEBUG);
        else
            gr_logger_unset_level(&log, net);
    }
    for (int t = 0; t < 2; t++)
        assert_int_equal(pthread_join(threads[t], NULL), 0);
    fclose(f);
    int info = 0;
    for (char *line = buf, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        assert_true(strncmp(line, "{\"time\":\"", 9) == 0);
        assert_string_equal(line + strlen(line) - 2, "\"}");
        info += strstr(line, "\"level\":\"INFO\"") != NULL;
    }
    assert_int_equal(info, 2 * THREAD_LINES);
    free(buf);
}

static void test_level_and_format_parse(void **state)
{
    gr_log_level_t l;
    gr_log_format_t f;
    (void)state;
    assert_int_equal(gr_log_level_parse("FATAL", &l), 0);
    assert_int_equal(l, GR_LOG_ERROR); /* Gregor's strictest threshold */
    assert_int_equal(gr_log_level_parse("off", &l), -EINVAL);
    assert_int_equal(gr_log_format_parse("JSON", &f), 0);
    assert_int_equal(f, GR_LOG_FORMAT_JSON);
    assert_int_equal(gr_log_format_parse("text", &f), 0);
    assert_int_equal(f, GR_LOG_FORMAT_TEXT);
    assert_int_equal(gr_log_format_parse("xml", &f), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_lines_follow_levels),
        cmocka_unit_test(test_apply_levels),
        cmocka_unit_test(test_config_keys),
        cmocka_unit_test(test_threads_while_levels_change),
        cmocka_unit_test(test_level_and_format_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
