/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's topics and their partitions, each partition with its log.
 *
 * A topic is created with a partition count and per-topic config overrides
 * (Kafka's topic-level keys: retention.ms, segment.bytes, max.message.bytes,
 * message.timestamp.type, compression.type, cleanup.policy, ...); those not
 * set fall back to the broker's log.* defaults. In single-node mode this
 * broker is every partition's leader, with leader epoch 0 and an ISR of one.
 *
 * The table is the source of truth while running; on disk a topic is its
 * partition directories (with the topic id in partition.metadata) plus its
 * definition in the metadata store (b->store: Kafka's /brokers/topics/<name>
 * and /config/topics/<name> JSON), so a restart recovers both. See topics.c
 * for the write order and how start-up reconciles a crash between them.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_TOPICS_H
#define GR_METADATA_TOPICS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/context.h"
#include "log/log.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "protocol/types.h"

#define GR_TOPIC_NAME_LIMIT 249
/* Kafka's internal topics: the group, transaction and share coordinators'. */
#define GR_OFFSETS_TOPIC           "__consumer_offsets"
#define GR_TRANSACTION_STATE_TOPIC "__transaction_state"
#define GR_SHARE_STATE_TOPIC       "__share_group_state"
#define GR_TOPIC_MAX_CONFIGS       64
/* Partitions one topic may have (Kafka's controller bounds a request's batch likewise). */
#define GR_TOPIC_MAX_PARTITIONS 10000

typedef struct gr_broker gr_broker_t;
typedef struct gr_topic gr_topic_t;

typedef enum gr_timestamp_type {
    GR_TIMESTAMP_CREATE_TIME = 0,
    GR_TIMESTAMP_LOG_APPEND_TIME = 1,
} gr_timestamp_type_t;

/* Topic-level settings the data path applies, after defaults. */
typedef struct gr_topic_settings {
    gr_log_config_t log;
    int32_t max_message_bytes; /* max.message.bytes */
    gr_timestamp_type_t timestamp_type;
    int64_t timestamp_before_max_ms; /* message.timestamp.before.max.ms */
    int64_t timestamp_after_max_ms;  /* message.timestamp.after.max.ms */
    int compression;                 /* gr_compression_t, or -1 for "producer" */
    int32_t min_insync_replicas;
    bool unclean_leader_election; /* unclean.leader.election.enable */
} gr_topic_settings_t;

typedef struct gr_topic_config {
    char *key;
    char *value;
} gr_topic_config_t;

struct gr_topic {
    char *name;
    gr_uuid_t id;
    int32_t partition_count;
    gr_partition_t *partitions;
    bool internal;     /* a coordinator's topic (GR_*_TOPIC above): clients cannot produce */
    bool config_known; /* cluster mode: /config/topics/<name> has been read */
    /* This broker's config writes not yet in the store: a re-read started
     * before them would undo them locally, so none is applied meanwhile
     * (each write's own notification re-reads after it). */
    int config_writes_pending;
    gr_topic_config_t configs[GR_TOPIC_MAX_CONFIGS];
    int config_count;
    gr_topic_settings_t settings;
    gr_topic_stats_t stats; /* BrokerTopicMetrics (core/context.h); go with the topic */
    gr_topic_t *next;       /* hash chain by name */
    gr_topic_t *next_by_id; /* hash chain by topic id */
};

/*
 * The log dir's offset checkpoints of the partitions on disk whose logs are
 * not open (topics_checkpoints.c): read once at start-up, taken out when a
 * partition's log opens, put back when it closes without deletion. The
 * files written are the open logs' offsets plus these.
 */
typedef struct gr_topics_checkpoints {
    struct gr_checkpoint_table *recovery, *start, *high_watermark;
    /* What each file last written holds (FNV-1a; 0 unknown): an unchanged
     * file is not rewritten (log/log_dir.h, gr_log_dir_write_checkpoint_text). */
    uint64_t written_hash[3];
} gr_topics_checkpoints_t;

typedef struct gr_topics {
    gr_topic_t **buckets;    /* by name */
    gr_topic_t **id_buckets; /* by topic id (Fetch v13+ names topics by id) */
    size_t bucket_count;
    size_t count;
    /* Moves on every insert and remove: a topic created or deleted (consumer
     * groups' regex subscriptions resolve again when it has moved). */
    uint64_t generation;
    gr_topics_checkpoints_t checkpoints;
    gr_log_flush_set_t flush_set; /* the open logs with data awaiting flush.ms */
} gr_topics_t;

int gr_topics_init(gr_topics_t *t);
/* Closes every log (flushing) and frees the table. Returns the first -errno. */
int gr_topics_fini(gr_topics_t *t);

gr_topic_t *gr_topics_find(gr_topics_t *t, const char *name, size_t len);
gr_topic_t *gr_topics_find_id(gr_topics_t *t, gr_uuid_t id);
gr_partition_t *gr_topic_partition(gr_topic_t *topic, int32_t index);

/* Calls fn for every topic (order unspecified). */
void gr_topics_foreach(gr_topics_t *t, void (*fn)(gr_topic_t *, void *), void *arg);

/*
 * Checks a topic name as Kafka does: 1..249 characters of [a-zA-Z0-9._-],
 * not "." or "..". Returns GR_KERR_NONE or GR_KERR_INVALID_TOPIC_EXCEPTION.
 */
gr_kerr_t gr_topic_name_check(const char *name, size_t len);

/*
 * Validates one topic config key/value. Returns GR_KERR_NONE, or
 * GR_KERR_INVALID_CONFIG with a message in err.
 */
gr_kerr_t gr_topic_config_check(const char *key, const char *value, char *err, size_t errlen);

/*
 * The checks of a topic creation (name, partition count, configs), creating
 * nothing: GR_KERR_NONE, TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION,
 * INVALID_PARTITIONS or INVALID_CONFIG, err filled. The controller creates
 * topics (controller/zk_admin.h).
 */
gr_kerr_t gr_topics_create_check(gr_broker_t *b, const char *name, int32_t partitions,
                                 const gr_topic_config_t *configs, int config_count, char *err,
                                 size_t errlen);

/*
 * Replaces a topic's overrides with configs (count of them; AlterConfigs'
 * whole-set semantics): validates every key and value and the set as a
 * whole, then, unless validate_only, applies the new settings to every
 * partition's log at once (gr_admin_set_topic_configs then writes them to
 * the store and notifies every broker). Returns GR_KERR_NONE, INVALID_CONFIG
 * (err filled) or UNKNOWN_SERVER_ERROR (out of memory; nothing changed).
 */
gr_kerr_t gr_topics_set_configs(gr_broker_t *b, gr_topic_t *topic, const gr_topic_config_t *configs,
                                int count, bool validate_only, char *err, size_t errlen);

/*
 * Reads the recovery-point, log-start and replication checkpoints of the log
 * dir (once, at start-up, before any partition opens). A file that cannot be
 * read is logged and counts as empty (its partitions recover as if it had
 * none). 0 or -ENOMEM.
 */
int gr_topics_checkpoints_load(gr_broker_t *b);
/* Writes the recovery-point, log-start and replication checkpoints. 0 or -errno. */
int gr_topics_checkpoint(gr_broker_t *b);

/* Computes a topic's effective settings from broker defaults and overrides. */
void gr_topic_settings_compute(const gr_broker_t *b, gr_topic_t *topic);

#endif
