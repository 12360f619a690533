/* SPDX-License-Identifier: Apache-2.0 */
#include "topic_wait.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "controller/zk_admin.h"
#include "core/context.h"
#include "loop_wait.h"

gr_topic_t *gr_test_hosted_topic(gr_broker_t *b, const char *name)
{
    gr_topic_t *t = gr_topics_find(b->topics, name, strlen(name));
    for (int32_t i = 0; t && i < t->partition_count; i++)
        if (!t->partitions[i].log)
            return NULL;
    return t;
}

typedef struct hosted_wait {
    gr_broker_t *b;
    const char *name;
} hosted_wait_t;

static bool is_hosted(void *arg)
{
    hosted_wait_t *w = arg;
    return gr_test_hosted_topic(w->b, w->name) != NULL;
}

gr_topic_t *gr_test_create_topic(struct ev_loop *loop, gr_broker_t *b, const char *name,
                                 int32_t partitions, const gr_topic_config_t *configs, int count)
{
    assert_int_equal(
        gr_zk_admin_create_topic(b, name, partitions, 1, NULL, configs, count, NULL, NULL), 0);
    hosted_wait_t w = {b, name};
    gr_test_wait(loop, is_hosted, &w, name);
    return gr_test_hosted_topic(b, name);
}
