/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator's table of groups, the env the groups run in
 * (libev timers, the broker clock, persistence), the offsets topic's
 * description for the coordinator runtime, offset retention, and forgetting
 * deleted topics' offsets. Records: coordinator_records.c; replay's record
 * handler: coordinator_load.c; leadership and routing over the runtime:
 * coordinator_leadership.c.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/internal_topic.h"
#include "core/context.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "group/cgroup.h"
#include "group/cgroup_classic.h"
#include "group/coordinator.h"
#include "group/coordinator_int.h"
#include "group/group_lag.h"
#include "group/group_int.h"

#define GR_COORDINATOR_BUCKETS 1024
#define GR_MS_PER_MINUTE       60000LL

/* --- the env: timers on the broker's loop ----------------------------------- */

static int64_t env_now(void *opaque)
{
    gr_coordinator_t *co = opaque;
    return gr_broker_now_ms(co->broker);
}

static void timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_group_timer_t *t = (gr_group_timer_t *)w; /* watcher is the first member */
    gr_coordinator_t *co = w->data;
    gr_group_timer_fired(t, &co->env);
}

static void env_timer_arm(void *opaque, gr_group_timer_t *t, int64_t delay_ms)
{
    gr_coordinator_t *co = opaque;
    ev_timer_stop(co->broker->loop, &t->watcher);
    ev_timer_init(&t->watcher, timer_cb, delay_ms > 0 ? (double)delay_ms / 1000.0 : 0.0, 0.0);
    t->watcher.data = co;
    ev_timer_start(co->broker->loop, &t->watcher);
}

static void env_timer_cancel(void *opaque, gr_group_timer_t *t)
{
    gr_coordinator_t *co = opaque;
    ev_timer_stop(co->broker->loop, &t->watcher);
}

/* A consumer group's view of a topic: its id and partition count. */
static bool env_topic_find(void *opaque, gr_str_t name, gr_cgroup_topic_info_t *out)
{
    gr_coordinator_t *co = opaque;
    gr_topic_t *t =
        gr_topics_find(co->broker->topics, name.ptr, name.len > 0 ? (size_t)name.len : 0);
    if (!t)
        return false;
    out->id = t->id;
    out->partition_count = t->partition_count;
    return true;
}

/* The racks of the live brokers holding replicas of topic's partition (rack-aware assignors). */
static int32_t env_partition_racks(void *opaque, const char *topic, int32_t partition,
                                   const char **racks, int32_t cap)
{
    gr_coordinator_t *co = opaque;
    gr_topic_t *t = gr_topics_find(co->broker->topics, topic, strlen(topic));
    gr_partition_t *p = t ? gr_topic_partition(t, partition) : NULL;
    int32_t n = 0;
    for (int32_t i = 0; p && i < p->replica_count && n < cap; i++) {
        const gr_cluster_node_t *node = gr_cluster_view_node(co->broker->cluster, p->replicas[i]);
        if (node && node->rack)
            racks[n++] = node->rack;
    }
    return n;
}

typedef struct topic_visit {
    void (*fn)(void *arg, const char *name);
    void *arg;
} topic_visit_t;

static void visit_topic(gr_topic_t *t, void *arg)
{
    topic_visit_t *v = arg;
    v->fn(v->arg, t->name);
}

/* Every topic by name, for regex subscriptions (internal ones too, as Kafka's). */
static void env_topic_foreach(void *opaque, void (*fn)(void *arg, const char *name), void *arg)
{
    gr_coordinator_t *co = opaque;
    topic_visit_t v = {fn, arg};
    gr_topics_foreach(co->broker->topics, visit_topic, &v);
}

static uint64_t env_topics_generation(void *opaque)
{
    gr_coordinator_t *co = opaque;
    return co->broker->topics->generation;
}

/* group.consumer.migration.policy (validated against its four values). */
static gr_cgroup_migration_t migration_policy(const gr_config_t *cfg)
{
    const char *p =
        cfg->group_consumer_migration_policy ? cfg->group_consumer_migration_policy : "";
    if (strcmp(p, "upgrade") == 0)
        return GR_CGROUP_MIGRATION_UPGRADE;
    if (strcmp(p, "downgrade") == 0)
        return GR_CGROUP_MIGRATION_DOWNGRADE;
    if (strcmp(p, "bidirectional") == 0)
        return GR_CGROUP_MIGRATION_BIDIRECTIONAL;
    return GR_CGROUP_MIGRATION_DISABLED;
}

/* --- the table ---------------------------------------------------------------- */

static gr_group_t *group_of(gr_coordinator_key_t *k)
{
    return k ? GR_COORDINATOR_ENTRY(k, gr_group_t, key) : NULL;
}

gr_group_t *gr_coordinator_find(gr_coordinator_t *co, gr_str_t id)
{
    return group_of(gr_coordinator_keys_find(&co->table, id));
}

gr_group_t *gr_coordinator_get_or_create(gr_coordinator_t *co, gr_str_t id, int32_t partition)
{
    gr_group_t *g = gr_coordinator_find(co, id);
    if (g || !co->table.buckets)
        return g;
    g = gr_group_new(id.ptr, id.len > 0 ? (size_t)id.len : 0, partition, env_now(co));
    if (!g)
        return NULL;
    gr_coordinator_keys_add(&co->table, &g->key);
    return g;
}

void gr_coordinator_remove(gr_coordinator_t *co, gr_group_t *g)
{
    gr_coordinator_txn_forget(co, g->key.partition, g->key.id);
    gr_coordinator_keys_remove(&co->table, &g->key);
    gr_group_free(g, &co->env);
}

gr_group_t *gr_coordinator_first(gr_coordinator_t *co)
{
    return group_of(gr_coordinator_keys_first(&co->table));
}

gr_group_t *gr_coordinator_next(gr_coordinator_t *co, gr_group_t *g)
{
    return group_of(gr_coordinator_keys_next(&co->table, &g->key));
}

void gr_coordinator_foreach(gr_coordinator_t *co, void (*fn)(gr_group_t *, void *), void *arg)
{
    for (gr_group_t *g = gr_coordinator_first(co); g; g = gr_coordinator_next(co, g))
        if (g->state != GR_GROUP_DEAD &&
            gr_coordinator_load_state(co, g->key.partition) == GR_COORDINATOR_LOADED)
            fn(g, arg);
}

/* --- the offsets topic ---------------------------------------------------------- */

gr_topic_t *gr_coordinator_topic(gr_coordinator_t *co)
{
    return gr_coordinator_runtime_topic(&co->runtime);
}

/* __consumer_offsets as Kafka creates it on first use (offsets.topic.*), and its replay. */
static void start_runtime(gr_coordinator_t *co)
{
    const gr_config_t *cfg = &co->broker->config;
    snprintf(co->segment_bytes, sizeof co->segment_bytes, "%d", cfg->offsets_topic_segment_bytes);
    co->topic_configs[0] = (gr_topic_config_t){"cleanup.policy", "compact"};
    co->topic_configs[1] = (gr_topic_config_t){"segment.bytes", co->segment_bytes};
    co->topic_configs[2] = (gr_topic_config_t){"compression.type", "producer"};
    gr_internal_topic_t topic = {
        .name = GR_OFFSETS_TOPIC,
        .factor_key = "offsets.topic.replication.factor",
        .log_tag = "group",
        .partitions = cfg->offsets_topic_num_partitions,
        .factor = cfg->offsets_topic_replication_factor,
        .configs = co->topic_configs,
        .config_count = (int)(sizeof co->topic_configs / sizeof co->topic_configs[0]),
    };
    gr_coordinator_spec_t spec = {
        .log_tag = "group",
        .keys = "group(s)",
        .load_slice = cfg->offsets_load_buffer_size,
        .reload_on_new_epoch = false,
        .serve_failed_replay = true,
    };
    gr_coordinator_runtime_init(&co->runtime, co->broker, &topic, &spec, &gr_coordinator_handler,
                                co);
}

bool gr_coordinator_creating_topic(gr_coordinator_t *co)
{
    return gr_coordinator_runtime_creating_topic(&co->runtime);
}

gr_kerr_t gr_coordinator_ensure_topic(gr_coordinator_t *co)
{
    return gr_coordinator_runtime_ensure_topic(&co->runtime);
}

/* --- retention and deleted topics -------------------------------------------------- */

/* Does offset o expire now under Kafka's rules for g's kind of group? */
static bool offset_expired(const gr_coordinator_t *co, const gr_group_t *g,
                           const gr_group_offset_t *o, const void *arg)
{
    int64_t now = *(const int64_t *)arg;
    int64_t retention = (int64_t)co->broker->config.offsets_retention_minutes * GR_MS_PER_MINUTE;
    if (o->expire_timestamp >= 0)
        return now >= o->expire_timestamp;
    /* A consumer group keeps what its members subscribe to; the rest expires from its commit. */
    if (g->consumer)
        return !gr_cgroup_subscribed_to(g->consumer, gr_str(o->topic)) &&
               now - o->commit_timestamp >= retention;
    if (!g->protocol_type) /* commit-only group */
        return now - o->commit_timestamp >= retention;
    if (g->state == GR_GROUP_EMPTY)
        return now - g->state_timestamp >= retention;
    if (g->state == GR_GROUP_STABLE && g->subscribed_topics &&
        strcmp(g->protocol_type, GR_GROUP_CONSUMER_PROTOCOL_TYPE) == 0 &&
        !gr_group_subscribed_to(g, gr_str(o->topic)))
        return now - o->commit_timestamp >= retention;
    return false;
}

/* Is offset o one of the topic named by arg (a gr_str_t)? */
static bool offset_of_topic(const gr_coordinator_t *co, const gr_group_t *g,
                            const gr_group_offset_t *o, const void *arg)
{
    (void)co;
    (void)g;
    return gr_str_eq(gr_str(o->topic), *(const gr_str_t *)arg);
}

typedef bool (*offset_match_fn)(const gr_coordinator_t *co, const gr_group_t *g,
                                const gr_group_offset_t *o, const void *arg);

/*
 * Kafka's cleanupGroupMetadata for one group: removes its offsets that
 * match (tombstones written), then deletes it if it is Empty without
 * offsets (why: for the log). g may be freed.
 */
static void cleanup_group(gr_coordinator_t *co, gr_group_t *g, offset_match_fn match,
                          const void *arg, const char *why)
{
    int32_t n = 0;
    gr_str_t *topics = malloc(sizeof(*topics) * (size_t)(g->offset_count + 1));
    int32_t *parts = malloc(sizeof(*parts) * (size_t)(g->offset_count + 1));
    for (int32_t i = 0; topics && parts && i < g->offset_count; i++) {
        if (match(co, g, &g->offsets[i], arg)) {
            topics[n] = gr_str(g->offsets[i].topic);
            parts[n++] = g->offsets[i].partition;
        }
    }
    /* Tombstones first: they copy the names the removal frees. */
    if (n > 0)
        (void)gr_coordinator_delete_offsets(co, g, topics, parts, n);
    free(topics);
    free(parts);
    /* Pending transactional offsets keep the group (Kafka's hasOffsets). A
     * share group has no offsets: its progress is the share coordinator's
     * state, which only DeleteGroups removes, so it stays until deleted. */
    if (g->state == GR_GROUP_EMPTY && g->offset_count == 0 && g->txn_offset_count == 0 &&
        g->type != GR_GROUP_TYPE_SHARE) {
        gr_logf(&co->broker->log, GR_LOG_INFO, "group", "group %s %s", g->key.id, why);
        (void)gr_coordinator_delete_group(co, g);
    }
}

/* Applies cleanup_group to every group of the partitions loaded here. */
static void cleanup_groups(gr_coordinator_t *co, offset_match_fn match, const void *arg,
                           const char *why)
{
    gr_group_t *next;
    for (gr_group_t *g = gr_coordinator_first(co); g; g = next) {
        next = gr_coordinator_next(co, g); /* cleanup_group may free g */
        if (gr_coordinator_load_state(co, g->key.partition) == GR_COORDINATOR_LOADED)
            cleanup_group(co, g, match, arg, why);
    }
}

void gr_coordinator_expire(gr_coordinator_t *co)
{
    int64_t now = env_now(co);
    cleanup_groups(co, offset_expired, &now, "expired");
}

void gr_coordinator_topic_deleted(gr_coordinator_t *co, gr_str_t topic)
{
    /* Pending transactional offsets of the topic go too (Kafka's removeOffsets);
     * retention, which shares cleanup_groups, never drops them. */
    for (gr_group_t *g = gr_coordinator_first(co); g; g = gr_coordinator_next(co, g))
        if (gr_coordinator_load_state(co, g->key.partition) == GR_COORDINATOR_LOADED)
            gr_group_txn_offset_drop(g, topic, -1);
    cleanup_groups(co, offset_of_topic, &topic, "removed: Empty without offsets");
}

static void retention_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_coordinator_expire(w->data);
}

/* --- lifecycle ---------------------------------------------------------------------- */

int gr_coordinator_init(gr_coordinator_t *co, gr_broker_t *b)
{
    memset(co, 0, sizeof(*co));
    co->broker = b;
    if (gr_coordinator_keys_init(&co->table, GR_COORDINATOR_BUCKETS) < 0)
        return -ENOMEM;
    start_runtime(co);
    co->env = (gr_group_env_t){
        .opaque = co,
        .limits = {.min_session_timeout_ms = b->config.group_min_session_timeout_ms,
                   .max_session_timeout_ms = b->config.group_max_session_timeout_ms,
                   .initial_rebalance_delay_ms = b->config.group_initial_rebalance_delay_ms,
                   .max_size = b->config.group_max_size},
        .now_ms = env_now,
        .timer_arm = env_timer_arm,
        .timer_cancel = env_timer_cancel,
        .store_group = gr_coordinator_store_group,
        .consumer_limits = {.migration = migration_policy(&b->config),
                            .heartbeat_interval_ms = b->config.group_consumer_heartbeat_interval_ms,
                            .session_timeout_ms = b->config.group_consumer_session_timeout_ms,
                            .max_size = b->config.group_consumer_max_size,
                            .assignors =
                                (const char *const *)b->config.group_consumer_assignors.items,
                            .assignor_count = b->config.group_consumer_assignors.count,
                            .regex_refresh_interval_ms =
                                b->config.group_consumer_regex_refresh_interval_ms},
        .topic_find = env_topic_find,
        .partition_racks = env_partition_racks,
        .topic_foreach = env_topic_foreach,
        .topics_generation = env_topics_generation,
        .store_consumer = gr_coordinator_store_consumer,
        .store_downgrade = gr_coordinator_store_downgrade,
        .share_limits = {.heartbeat_interval_ms = b->config.group_share_heartbeat_interval_ms,
                         .session_timeout_ms = b->config.group_share_session_timeout_ms,
                         .max_size = b->config.group_share_max_size},
        .store_share = gr_coordinator_store_share,
    };
    double interval = (double)b->config.offsets_retention_check_interval_ms / 1000.0;
    ev_timer_init(&co->retention_timer, retention_cb, interval, interval);
    co->retention_timer.data = co;
    return 0;
}

void gr_coordinator_set_responders(gr_coordinator_t *co, gr_group_respond_join_fn *join,
                                   gr_group_respond_sync_fn *sync)
{
    co->env.respond_join = join;
    co->env.respond_sync = sync;
}

void gr_coordinator_start(gr_coordinator_t *co)
{
    ev_timer_start(co->broker->loop, &co->retention_timer);
    ev_unref(co->broker->loop); /* the retention timer alone does not keep the loop running */
}

/* gr_coordinator_keys_drop's fn: frees the group (waiting requests answered NOT_AVAILABLE). */
static void free_dropped(gr_coordinator_key_t *k, void *arg)
{
    gr_coordinator_t *co = arg;
    gr_group_free(group_of(k), &co->env);
}

void gr_coordinator_fini(gr_coordinator_t *co)
{
    gr_group_lag_free(co->lag); /* its peers hold nothing of the groups */
    co->lag = NULL;
    if (!co->table.buckets)
        return;
    if (ev_is_active(&co->retention_timer)) {
        ev_ref(co->broker->loop);
        ev_timer_stop(co->broker->loop, &co->retention_timer);
    }
    gr_coordinator_runtime_fini(&co->runtime); /* from now on routing answers NOT_AVAILABLE */
    (void)gr_coordinator_keys_drop(&co->table, -1, free_dropped, co);
    gr_coordinator_keys_fini(&co->table); /* from now on every group request is NOT_AVAILABLE */
    gr_coordinator_txn_fini(co);
}
