/* SPDX-License-Identifier: Apache-2.0 */
/* The unit tests' single-node broker; see broker_fixture.h. */
#include "broker_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log/log_dir.h"

#define CONFIG_ERROR_MAX 256

int gr_test_broker_make_dir(gr_test_broker_t *tb, const char *name)
{
    memset(tb, 0, sizeof *tb);
    snprintf(tb->dir, sizeof tb->dir, "/tmp/gr-%s-XXXXXX", name);
    return mkdtemp(tb->dir) ? 0 : -1;
}

int gr_test_broker_start(gr_test_broker_t *tb, const char *const *overrides, int count)
{
    char dirs[sizeof tb->dir + sizeof "log.dirs="];
    snprintf(dirs, sizeof dirs, "log.dirs=%s", tb->dir);
    const char *all[GR_TEST_BROKER_OVERRIDES_MAX + 2] = {dirs, "listeners=PLAINTEXT://127.0.0.1:0"};
    assert_true(count >= 0 && count <= GR_TEST_BROKER_OVERRIDES_MAX);
    for (int i = 0; i < count; i++)
        all[i + 2] = overrides[i];
    gr_config_t config;
    char err[CONFIG_ERROR_MAX];
    if (gr_config_load(&config, NULL, all, count + 2, NULL, err, sizeof err) != 0)
        fail_msg("config refused: %s", err);
    tb->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(tb->loop);
    tb->b = calloc(1, sizeof *tb->b);
    assert_non_null(tb->b);
    assert_int_equal(gr_broker_init(tb->b, tb->loop, &config), 0);
    tb->log_file = open_memstream(&tb->log_text, &tb->log_len);
    assert_non_null(tb->log_file);
    tb->b->log.out = tb->log_file;
    return gr_broker_start(tb->b);
}

void gr_test_broker_stop(gr_test_broker_t *tb)
{
    if (!tb->b)
        return;
    (void)gr_broker_fini(tb->b);
    free(tb->b);
    tb->b = NULL;
    ev_loop_destroy(tb->loop);
    tb->loop = NULL;
    fclose(tb->log_file);
    if (getenv("GR_TEST_LOG") && tb->log_text)
        fputs(tb->log_text, stderr);
    free(tb->log_text);
    tb->log_file = NULL;
    tb->log_text = NULL;
    tb->log_len = 0;
}

void gr_test_broker_remove(gr_test_broker_t *tb)
{
    gr_test_broker_stop(tb);
    if (tb->dir[0])
        gr_log_dir_remove_tree(NULL, tb->dir);
    tb->dir[0] = '\0';
}

bool gr_test_broker_logged(gr_test_broker_t *tb, const char *text)
{
    fflush(tb->log_file);
    return tb->log_text && strstr(tb->log_text, text) != NULL;
}

int gr_test_broker_new(void **state, const char *name)
{
    gr_test_broker_t *tb = calloc(1, sizeof *tb);
    if (!tb || gr_test_broker_make_dir(tb, name) < 0) {
        free(tb);
        return -1;
    }
    *state = tb;
    return 0;
}

int gr_test_broker_free(void **state)
{
    gr_test_broker_t *tb = *state;
    gr_test_broker_remove(tb);
    free(tb);
    return 0;
}
