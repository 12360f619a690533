/* SPDX-License-Identifier: Apache-2.0 */
#include "metadata/topic_config_fetch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "metadata/topics_int.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

struct gr_topic_configs_fetch {
    gr_broker_t *b;
    gr_topic_configs_done_fn *done;
    void *opaque;
    size_t pending;
};

typedef struct config_read {
    gr_topic_configs_fetch_t *fetch;
    char name[GR_TOPIC_NAME_LIMIT + 1];
} config_read_t;

/* One override of a /config/topics document, added to the topic (ctx). */
static int add_entry(void *ctx, const char *key, const gr_zk_json_t *value)
{
    if (value->type != GR_ZK_JSON_STRING || strlen(value->string) != value->string_len)
        return -EINVAL;
    return gr_topic_add_config(ctx, key, value->string);
}

/* Adds the overrides of a /config/topics document to topic. 0, -EINVAL, -E2BIG, -ENOMEM. */
static int parse_config(const char *text, size_t len, gr_topic_t *topic)
{
    return gr_zk_doc_config_each(text, len, add_entry, topic);
}

/*
 * Replaces the topic's overrides with those of a /config/topics document
 * (NULL: none) and applies them to its open logs. 0, -EINVAL or -ENOMEM.
 */
static int apply_config_doc(gr_broker_t *b, gr_topic_t *topic, const char *text, size_t len)
{
    gr_topic_t *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return -ENOMEM;
    int rc = text ? parse_config(text, len, fresh) : 0;
    if (rc) {
        gr_topic_clear_configs(fresh);
        free(fresh);
        return rc;
    }
    gr_topic_adopt_configs(b, topic, fresh);
    return 0;
}

static void fetch_release(gr_topic_configs_fetch_t *f)
{
    if (--f->pending > 0)
        return;
    if (f->done)
        f->done(f->opaque);
    free(f);
}

static void on_config(void *opaque, int rc, const void *data, size_t len,
                      const gr_store_stat_t *stat)
{
    (void)stat;
    config_read_t *r = opaque;
    gr_broker_t *b = r->fetch->b;
    gr_topic_t *topic = gr_topics_find(b->topics, r->name, strlen(r->name));
    if (topic && topic->config_writes_pending > 0) {
        /* stale against a write of ours still under way; its notification re-reads */
    } else if (topic && (rc == GR_STORE_OK || rc == GR_STORE_NONODE)) {
        int prc = apply_config_doc(b, topic, rc == GR_STORE_OK ? data : NULL, len);
        if (prc)
            gr_logf(&b->log, GR_LOG_ERROR, "topics", "config of %s unreadable: %s", r->name,
                    strerror(-prc));
        topic->config_known = true;
    } else if (topic && rc != GR_STORE_CLOSING) {
        gr_logf(&b->log, GR_LOG_WARN, "topics", "reading the config of %s failed: %s", r->name,
                gr_store_rc_name(rc));
    }
    fetch_release(r->fetch);
    free(r);
}

int gr_topic_configs_fetch(gr_broker_t *b, const gr_str_t *names, size_t count,
                           gr_topic_configs_done_fn *done, void *opaque,
                           gr_topic_configs_fetch_t **out)
{
    gr_topic_configs_fetch_t *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    f->b = b;
    f->done = done;
    f->opaque = opaque;
    f->pending = 1; /* held until every read is issued */
    for (size_t i = 0; i < count; i++) {
        config_read_t *r = calloc(1, sizeof *r);
        if (!r || names[i].len <= 0 || names[i].len > GR_TOPIC_NAME_LIMIT) {
            free(r);
            continue;
        }
        r->fetch = f;
        memcpy(r->name, names[i].ptr, (size_t)names[i].len);
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, GR_ZK_CONFIG_TOPICS_PATH "/%s", r->name);
        if (gr_store_get(b->store_session, path, NULL, NULL, on_config, r) == GR_STORE_OK)
            f->pending++;
        else
            free(r);
    }
    if (out)
        *out = f->pending > 1 ? f : NULL;
    if (f->pending == 1) {
        free(f);
        return 1;
    }
    fetch_release(f); /* completions never run inside gr_store_get: done comes later */
    return 0;
}

void gr_topic_configs_fetch_cancel(gr_topic_configs_fetch_t *f)
{
    if (f)
        f->done = NULL;
}
