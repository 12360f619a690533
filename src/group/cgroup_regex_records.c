/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A consumer group's resolved regexes in __consumer_offsets: Kafka's
 * ConsumerGroupRegularExpression record (key type 16: group id and regex;
 * value: the topics, the version and time of the resolution), written
 * with the rest of the group by cgroup_records.c:
 *
 *   - the tombstones of the regexes no member uses any more, with the
 *     departed members' tombstones, first in the batch;
 *   - each resolved regex after the members' metadata (a never-resolved
 *     one has nothing to say yet);
 *   - deleting the group: a tombstone for each.
 *
 * Replay sets or removes the group's resolution (gr_cgroup_regex_replay).
 *
 * Runs on: loop thread.
 */
#include <errno.h>

#include "coordinator/record.h"
#include "gen/consumer_offsets.h"
#include "group/cgroup_int.h"
#include "group/coordinator_int.h"

#define REGEX_VALUE_VERSION 0

static int put_key(gr_record_set_t *s, const char *group, const char *pattern, bool tombstone)
{
    gr_consumer_group_regular_expression_key_t k = {.group_id = gr_str(group),
                                                    .regular_expression = gr_str(pattern)};
    int rc = gr_record_set_key(s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_REGULAR_EXPRESSION);
    if (!rc)
        rc = gr_consumer_group_regular_expression_key_encode(
            &s->buf, GR_CONSUMER_GROUP_REGULAR_EXPRESSION_KEY_MAX_VERSION, &k);
    gr_record_set_value(s, REGEX_VALUE_VERSION, tombstone);
    return rc;
}

static int put_tombstone(gr_record_set_t *s, const char *group, const char *pattern)
{
    int rc = put_key(s, group, pattern, true);
    return rc ? rc : gr_record_set_done(s);
}

static int put_resolution(gr_record_set_t *s, const char *group, const gr_cgroup_regex_t *e,
                          gr_arena_t *a)
{
    gr_consumer_group_regular_expression_value_t v;
    gr_consumer_group_regular_expression_value_init(&v);
    v.topics = gr_arena_alloc_array(a, e->topic_count, sizeof(*v.topics));
    if (!v.topics)
        return -ENOMEM;
    for (int32_t i = 0; i < e->topic_count; i++)
        v.topics[i] = gr_str(e->topics[i]);
    v.topics_count = e->topic_count;
    v.version = e->version;
    v.timestamp = e->timestamp_ms;
    int rc = put_key(s, group, e->pattern, false);
    if (!rc)
        rc = gr_consumer_group_regular_expression_value_encode(&s->buf, REGEX_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

int gr_cgroup_regex_records_removed(gr_record_set_t *s, const gr_cgroup_t *cg)
{
    int rc = 0;
    for (int32_t i = 0; i < cg->regexes.removed_count && !rc; i++)
        rc = put_tombstone(s, cg->group->key.id, cg->regexes.removed[i]);
    return rc;
}

int gr_cgroup_regex_records_put(gr_record_set_t *s, const gr_cgroup_t *cg, gr_arena_t *a)
{
    int rc = 0;
    for (int32_t i = 0; i < cg->regexes.count && !rc; i++)
        if (cg->regexes.items[i].resolved)
            rc = put_resolution(s, cg->group->key.id, &cg->regexes.items[i], a);
    return rc;
}

int gr_cgroup_regex_records_tombstones(gr_record_set_t *s, const gr_cgroup_t *cg)
{
    int rc = gr_cgroup_regex_records_removed(s, cg);
    for (int32_t i = 0; i < cg->regexes.count && !rc; i++)
        rc = put_tombstone(s, cg->group->key.id, cg->regexes.items[i].pattern);
    return rc;
}

int gr_cgroup_regex_records_replay(gr_coordinator_t *co, int32_t partition, gr_reader_t *kr,
                                   gr_bytes_t value, gr_arena_t *a)
{
    gr_consumer_group_regular_expression_key_t key;
    if (gr_consumer_group_regular_expression_key_decode(
            kr, GR_CONSUMER_GROUP_REGULAR_EXPRESSION_KEY_MAX_VERSION, a, &key) < 0)
        return -EBADMSG;
    gr_group_t *g = gr_coordinator_find(co, key.group_id);
    if (value.len < 0)
        return g && g->consumer
                   ? gr_cgroup_regex_replay(g->consumer, key.regular_expression, NULL, -1, 0, 0)
                   : 0;
    gr_consumer_group_regular_expression_value_t v;
    gr_reader_t vr;
    int vv = gr_coordinator_record_open(
        value, GR_CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE_MAX_VERSION, &vr);
    if (vv < 0 || gr_consumer_group_regular_expression_value_decode(&vr, (int16_t)vv, a, &v) < 0)
        return -EBADMSG;
    /* Written after its members' metadata, so the consumer group exists already. */
    if (!g && !(g = gr_coordinator_get_or_create(co, key.group_id, partition)))
        return -ENOMEM;
    if (g->type != GR_GROUP_TYPE_CONSUMER && gr_group_become_consumer(g, &co->env) != GR_KERR_NONE)
        return 0; /* a classic group with members holds the id: not this group's record */
    return gr_cgroup_regex_replay(g->consumer, key.regular_expression, v.topics, v.topics_count,
                                  v.version, v.timestamp);
}
