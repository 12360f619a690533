/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of known broker keys: every server.properties key Gregor reads,
 * with its type, Kafka 3.8's default, and its valid range or value set; each
 * entry points at its field in gr_config_t. An index into the table is the
 * index of the key's per-key state in gr_config_t (text[], source[]); a
 * _Static_assert checks the table fits GR_CONFIG_KEY_MAX. config.c converts
 * and validates values by these entries. Const data and lookups only; any
 * thread.
 */
#include "core/config.h"
#include "core/config_int.h"
#include "core/ip_overrides.h"
#include "core/kafka_version.h"
#include "core/logging.h"

#include <assert.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

static const char *const compression_types[] = {"uncompressed", "zstd",     "lz4", "snappy",
                                                "gzip",         "producer", NULL};
static const char *const timestamp_types[] = {"CreateTime", "LogAppendTime", NULL};
static const char *const cleanup_policies[] = {"compact", "delete", NULL};
static const char *const consumer_assignors[] = {"uniform", "range", NULL};
static const char *const migration_policies[] = {"disabled", "upgrade", "downgrade",
                                                 "bidirectional", NULL};
/* Kafka 4.x's group types; "streams" is accepted and serves nothing here. */
static const char *const rebalance_protocols[] = {"classic", "consumer", "share", "streams", NULL};
static const char *const ssl_client_auths[] = {"none", "requested", "required", NULL};
static const char *const log_formats[] = {"text", "json", NULL};

#define LONG_MAX_TEXT "9223372036854775807"
#define INT_MAX_TEXT  "2147483647"

#define FIELD(f) offsetof(gr_config_t, f)
#define KEY_BOOL(n, f, d)                                                                          \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_BOOL, .default_value = d, .offset = FIELD(f)                  \
    }
#define KEY_STRING(n, f, d, set)                                                                   \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_STRING, .default_value = d, .offset = FIELD(f),               \
        .allowed = set                                                                             \
    }
#define KEY_STRING_CHECKED(n, f, d, check, what)                                                   \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_STRING, .default_value = d, .offset = FIELD(f),               \
        .known = check, .known_what = what                                                         \
    }
#define KEY_LIST(n, f, d, set)                                                                     \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_LIST, .default_value = d, .offset = FIELD(f), .allowed = set  \
    }
#define KEY_INT(n, f, d, lo, hi)                                                                   \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_INT, .default_value = d, .offset = FIELD(f), .min = lo,       \
        .max = hi                                                                                  \
    }
#define KEY_SHORT(n, f, d, lo, hi)                                                                 \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_SHORT, .default_value = d, .offset = FIELD(f), .min = lo,     \
        .max = hi                                                                                  \
    }
#define KEY_LONG(n, f, d, lo, hi)                                                                  \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_LONG, .default_value = d, .offset = FIELD(f), .min = lo,      \
        .max = hi                                                                                  \
    }
#define KEY_DOUBLE(n, f, d, lo, hi)                                                                \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_DOUBLE, .default_value = d, .offset = FIELD(f),               \
        .min_double = lo, .max_double = hi                                                         \
    }

#define IMAX INT32_MAX
#define IMIN INT32_MIN
#define LMAX INT64_MAX
#define LMIN INT64_MIN

/*
 * The known keys with Kafka 3.8's defaults and bounds. A NULL default is
 * Kafka's null: the key is unset until configured.
 */
static const gr_config_def_t config_table[] = {
    /*
     * Kafka's default is -1: a generated id (reserved.broker.max.id + 1 on,
     * from /brokers/seqid) kept in meta.properties (core/broker_id.h).
     * Gregor's default is 0, which suits the single-node default; -1 asks
     * for a generated id as in Kafka, in both modes.
     */
    KEY_INT("broker.id", broker_id, "0", -1, IMAX),
    KEY_BOOL("broker.id.generation.enable", broker_id_generation_enable, "true"),
    KEY_INT("reserved.broker.max.id", reserved_broker_max_id, "1000", 0, IMAX),
    KEY_STRING("broker.rack", broker_rack, NULL, NULL),
    KEY_STRING("listeners", listeners, "PLAINTEXT://:9092", NULL),
    KEY_STRING("advertised.listeners", advertised_listeners, NULL, NULL),
    KEY_STRING("listener.security.protocol.map", listener_security_protocol_map,
               GR_DEFAULT_PROTOCOL_MAP, NULL),
    KEY_STRING("inter.broker.listener.name", inter_broker_listener_name, NULL, NULL),
    KEY_STRING("security.inter.broker.protocol", security_inter_broker_protocol, "PLAINTEXT",
               gr_security_protocol_names),
    KEY_STRING_CHECKED("inter.broker.protocol.version", inter_broker_protocol_version, "3.8-IV0",
                       gr_kafka_version_known, "a known version"),
    KEY_INT("num.network.threads", num_network_threads, "3", 1, IMAX),
    KEY_INT("num.io.threads", num_io_threads, "8", 1, IMAX),
    KEY_INT("background.threads", background_threads, "10", 1, IMAX),
    KEY_INT("socket.send.buffer.bytes", socket_send_buffer_bytes, "102400", IMIN, IMAX),
    KEY_INT("socket.receive.buffer.bytes", socket_receive_buffer_bytes, "102400", IMIN, IMAX),
    KEY_INT("socket.request.max.bytes", socket_request_max_bytes, "104857600", 1, IMAX),
    KEY_INT("socket.listen.backlog.size", socket_listen_backlog_size, "50", 1, IMAX),
    KEY_INT("queued.max.requests", queued_max_requests, "500", 1, IMAX),
    KEY_LONG("queued.max.request.bytes", queued_max_request_bytes, "-1", LMIN, LMAX),
    KEY_LONG("connections.max.idle.ms", connections_max_idle_ms, "600000", LMIN, LMAX),
    KEY_INT("max.connections", max_connections, INT_MAX_TEXT, 0, IMAX),
    KEY_INT("max.connections.per.ip", max_connections_per_ip, INT_MAX_TEXT, 0, IMAX),
    KEY_STRING_CHECKED("max.connections.per.ip.overrides", max_connections_per_ip_overrides, "",
                       gr_ip_overrides_known, "host:count[,host:count...]"),
    KEY_INT("max.connection.creation.rate", max_connection_creation_rate, INT_MAX_TEXT, 0, IMAX),

    KEY_INT("num.partitions", num_partitions, "1", 1, IMAX),
    KEY_INT("default.replication.factor", default_replication_factor, "1", 1, IMAX),
    KEY_BOOL("auto.create.topics.enable", auto_create_topics_enable, "true"),
    KEY_BOOL("delete.topic.enable", delete_topic_enable, "true"),
    KEY_INT("message.max.bytes", message_max_bytes, "1048588", 0, IMAX),
    KEY_INT("fetch.max.bytes", fetch_max_bytes, "57671680", 1024, IMAX),
    /* Fetch sessions (KIP-227, handlers/fetch_sessions.h). */
    KEY_INT("max.incremental.fetch.session.cache.slots", max_incremental_fetch_session_cache_slots,
            "1000", 0, IMAX),
    KEY_INT("min.incremental.fetch.session.eviction.ms", min_incremental_fetch_session_eviction_ms,
            "120000", 0, IMAX),
    KEY_STRING("compression.type", compression_type, "producer", compression_types),
    {.name = "compression.gzip.level",
     .type = GR_CONFIG_INT,
     .default_value = "-1",
     .offset = FIELD(compression_gzip_level),
     .min = 1,
     .max = 9,
     .has_extra = true,
     .extra = -1},
    KEY_INT("compression.lz4.level", compression_lz4_level, "9", 1, 17),
    KEY_INT("compression.zstd.level", compression_zstd_level, "3", -131072, 22),
    KEY_INT("min.insync.replicas", min_insync_replicas, "1", 1, IMAX),
    KEY_BOOL("unclean.leader.election.enable", unclean_leader_election_enable, "false"),
    KEY_BOOL("auto.leader.rebalance.enable", auto_leader_rebalance_enable, "true"),
    KEY_LONG("leader.imbalance.check.interval.seconds", leader_imbalance_check_interval_seconds,
             "300", 1, LMAX),
    KEY_INT("leader.imbalance.per.broker.percentage", leader_imbalance_per_broker_percentage, "10",
            IMIN, IMAX),
    KEY_BOOL("controlled.shutdown.enable", controlled_shutdown_enable, "true"),
    KEY_INT("controlled.shutdown.max.retries", controlled_shutdown_max_retries, "3", IMIN, IMAX),
    KEY_LONG("controlled.shutdown.retry.backoff.ms", controlled_shutdown_retry_backoff_ms, "5000",
             LMIN, LMAX),

    KEY_STRING("log.dir", log_dir, "/tmp/kafka-logs", NULL),
    KEY_LIST("log.dirs", log_dirs, NULL, NULL),
    KEY_INT("log.segment.bytes", log_segment_bytes, "1073741824", 14, IMAX),
    KEY_LONG("log.roll.ms", log_roll_ms, NULL, 1, LMAX),
    KEY_INT("log.roll.hours", log_roll_hours, "168", 1, IMAX),
    KEY_LONG("log.roll.jitter.ms", log_roll_jitter_ms, NULL, 0, LMAX),
    KEY_INT("log.roll.jitter.hours", log_roll_jitter_hours, "0", 0, IMAX),
    KEY_LONG("log.retention.ms", log_retention_ms, NULL, LMIN, LMAX),
    KEY_INT("log.retention.minutes", log_retention_minutes, NULL, IMIN, IMAX),
    KEY_INT("log.retention.hours", log_retention_hours, "168", IMIN, IMAX),
    KEY_LONG("log.retention.bytes", log_retention_bytes, "-1", LMIN, LMAX),
    KEY_LONG("log.retention.check.interval.ms", log_retention_check_interval_ms, "300000", 1, LMAX),
    KEY_INT("log.index.interval.bytes", log_index_interval_bytes, "4096", 0, IMAX),
    KEY_INT("log.index.size.max.bytes", log_index_size_max_bytes, "10485760", 4, IMAX),
    KEY_LONG("log.flush.interval.messages", log_flush_interval_messages, LONG_MAX_TEXT, 1, LMAX),
    KEY_LONG("log.flush.interval.ms", log_flush_interval_ms, NULL, LMIN, LMAX),
    KEY_LONG("log.flush.scheduler.interval.ms", log_flush_scheduler_interval_ms, LONG_MAX_TEXT,
             LMIN, LMAX),
    KEY_INT("log.flush.offset.checkpoint.interval.ms", log_flush_offset_checkpoint_interval_ms,
            "60000", 0, IMAX),
    KEY_INT("log.flush.start.offset.checkpoint.interval.ms",
            log_flush_start_offset_checkpoint_interval_ms, "60000", 0, IMAX),
    KEY_LIST("log.cleanup.policy", log_cleanup_policy, "delete", cleanup_policies),
    KEY_STRING("log.message.timestamp.type", log_message_timestamp_type, "CreateTime",
               timestamp_types),
    KEY_LONG("log.message.timestamp.difference.max.ms", log_message_timestamp_difference_max_ms,
             LONG_MAX_TEXT, 0, LMAX),
    KEY_LONG("log.message.timestamp.before.max.ms", log_message_timestamp_before_max_ms,
             LONG_MAX_TEXT, 0, LMAX),
    KEY_LONG("log.message.timestamp.after.max.ms", log_message_timestamp_after_max_ms,
             LONG_MAX_TEXT, 0, LMAX),
    KEY_STRING_CHECKED("log.message.format.version", log_message_format_version, "3.0-IV1",
                       gr_kafka_version_known, "a known version"),
    KEY_BOOL("log.message.downconversion.enable", log_message_downconversion_enable, "true"),
    KEY_BOOL("log.preallocate", log_preallocate, "false"),
    KEY_LONG("log.segment.delete.delay.ms", log_segment_delete_delay_ms, "60000", 0, LMAX),
    KEY_INT("num.recovery.threads.per.data.dir", num_recovery_threads_per_data_dir, "1", 1, IMAX),
    KEY_BOOL("log.cleaner.enable", log_cleaner_enable, "true"),
    KEY_INT("log.cleaner.threads", log_cleaner_threads, "1", 0, IMAX),
    KEY_LONG("log.cleaner.dedupe.buffer.size", log_cleaner_dedupe_buffer_size, "134217728", LMIN,
             LMAX),
    KEY_INT("log.cleaner.io.buffer.size", log_cleaner_io_buffer_size, "524288", 0, IMAX),
    KEY_DOUBLE("log.cleaner.io.buffer.load.factor", log_cleaner_io_buffer_load_factor, "0.9",
               -DBL_MAX, DBL_MAX),
    KEY_DOUBLE("log.cleaner.io.max.bytes.per.second", log_cleaner_io_max_bytes_per_second,
               "1.7976931348623157E308", -DBL_MAX, DBL_MAX),
    KEY_LONG("log.cleaner.backoff.ms", log_cleaner_backoff_ms, "15000", 0, LMAX),
    KEY_LONG("log.cleaner.delete.retention.ms", log_cleaner_delete_retention_ms, "86400000", 0,
             LMAX),
    KEY_DOUBLE("log.cleaner.min.cleanable.ratio", log_cleaner_min_cleanable_ratio, "0.5", 0.0, 1.0),
    KEY_LONG("log.cleaner.min.compaction.lag.ms", log_cleaner_min_compaction_lag_ms, "0", 0, LMAX),
    KEY_LONG("log.cleaner.max.compaction.lag.ms", log_cleaner_max_compaction_lag_ms, LONG_MAX_TEXT,
             1, LMAX),

    KEY_INT("offsets.topic.num.partitions", offsets_topic_num_partitions, "50", 1, IMAX),
    KEY_SHORT("offsets.topic.replication.factor", offsets_topic_replication_factor, "3", 1,
              INT16_MAX),
    KEY_INT("offsets.topic.segment.bytes", offsets_topic_segment_bytes, "104857600", 1, IMAX),
    KEY_INT("offsets.topic.compression.codec", offsets_topic_compression_codec, "0", IMIN, IMAX),
    KEY_INT("offsets.retention.minutes", offsets_retention_minutes, "10080", 1, IMAX),
    KEY_LONG("offsets.retention.check.interval.ms", offsets_retention_check_interval_ms, "600000",
             1, LMAX),
    KEY_INT("offsets.commit.timeout.ms", offsets_commit_timeout_ms, "5000", 1, IMAX),
    KEY_SHORT("offsets.commit.required.acks", offsets_commit_required_acks, "-1", INT16_MIN,
              INT16_MAX),
    KEY_INT("offsets.load.buffer.size", offsets_load_buffer_size, "5242880", 1, IMAX),
    KEY_INT("group.initial.rebalance.delay.ms", group_initial_rebalance_delay_ms, "3000", IMIN,
            IMAX),
    KEY_INT("group.min.session.timeout.ms", group_min_session_timeout_ms, "6000", IMIN, IMAX),
    KEY_INT("group.max.session.timeout.ms", group_max_session_timeout_ms, "1800000", IMIN, IMAX),
    KEY_INT("group.max.size", group_max_size, INT_MAX_TEXT, 1, IMAX),
    /* KIP-848 consumer groups, with Kafka 4.0's defaults and bounds. */
    KEY_INT("group.consumer.heartbeat.interval.ms", group_consumer_heartbeat_interval_ms, "5000", 1,
            IMAX),
    KEY_INT("group.consumer.min.heartbeat.interval.ms", group_consumer_min_heartbeat_interval_ms,
            "5000", 1, IMAX),
    KEY_INT("group.consumer.max.heartbeat.interval.ms", group_consumer_max_heartbeat_interval_ms,
            "15000", 1, IMAX),
    KEY_INT("group.consumer.session.timeout.ms", group_consumer_session_timeout_ms, "45000", 1,
            IMAX),
    KEY_INT("group.consumer.min.session.timeout.ms", group_consumer_min_session_timeout_ms, "45000",
            1, IMAX),
    KEY_INT("group.consumer.max.session.timeout.ms", group_consumer_max_session_timeout_ms, "60000",
            1, IMAX),
    KEY_INT("group.consumer.regex.refresh.interval.ms", group_consumer_regex_refresh_interval_ms,
            "600000", 10000, IMAX),
    KEY_INT("group.consumer.max.size", group_consumer_max_size, INT_MAX_TEXT, 1, IMAX),
    KEY_LIST("group.consumer.assignors", group_consumer_assignors, "uniform,range",
             consumer_assignors),
    KEY_STRING("group.consumer.migration.policy", group_consumer_migration_policy, "bidirectional",
               migration_policies),
    /* KIP-932 share groups, with Kafka 4.2's defaults and bounds. */
    KEY_INT("group.share.heartbeat.interval.ms", group_share_heartbeat_interval_ms, "5000", 1,
            IMAX),
    KEY_INT("group.share.min.heartbeat.interval.ms", group_share_min_heartbeat_interval_ms, "5000",
            1, IMAX),
    KEY_INT("group.share.max.heartbeat.interval.ms", group_share_max_heartbeat_interval_ms, "15000",
            1, IMAX),
    KEY_INT("group.share.session.timeout.ms", group_share_session_timeout_ms, "45000", 1, IMAX),
    KEY_INT("group.share.min.session.timeout.ms", group_share_min_session_timeout_ms, "45000", 1,
            IMAX),
    KEY_INT("group.share.max.session.timeout.ms", group_share_max_session_timeout_ms, "60000", 1,
            IMAX),
    KEY_INT("group.share.max.size", group_share_max_size, "200", 10, 1000),
    /*
     * Kafka 4.2 turns share groups on with its share.version feature (on by
     * default); Gregor, without features, turns them on with "share" here.
     */
    KEY_LIST("group.coordinator.rebalance.protocols", group_coordinator_rebalance_protocols,
             "classic,consumer,share", rebalance_protocols),
    KEY_INT("offset.metadata.max.bytes", offset_metadata_max_bytes, "4096", 0, IMAX),
    /* Share groups (KIP-932), on partition leaders: Kafka 4.2's names and defaults. */
    KEY_INT("group.share.record.lock.duration.ms", group_share_record_lock_duration_ms, "30000",
            1000, 3600000),
    KEY_INT("group.share.delivery.count.limit", group_share_delivery_count_limit, "5", 2, 10),
    KEY_INT("group.share.partition.max.record.locks", group_share_partition_max_record_locks,
            "2000", 100, 10000),
    KEY_INT("group.share.max.share.sessions", group_share_max_share_sessions, "2000", 1, IMAX),

    KEY_INT("transaction.state.log.num.partitions", transaction_state_log_num_partitions, "50", 1,
            IMAX),
    KEY_SHORT("transaction.state.log.replication.factor", transaction_state_log_replication_factor,
              "3", 1, INT16_MAX),
    KEY_INT("transaction.state.log.min.isr", transaction_state_log_min_isr, "2", 1, IMAX),
    KEY_INT("transaction.state.log.segment.bytes", transaction_state_log_segment_bytes, "104857600",
            1, IMAX),
    KEY_INT("transaction.state.log.load.buffer.size", transaction_state_log_load_buffer_size,
            "5242880", 1, IMAX),
    KEY_INT("transaction.max.timeout.ms", transaction_max_timeout_ms, "900000", 1, IMAX),
    KEY_INT("transactional.id.expiration.ms", transactional_id_expiration_ms, "604800000", 1, IMAX),
    KEY_INT("transaction.abort.timed.out.transaction.cleanup.interval.ms",
            transaction_abort_timed_out_transaction_cleanup_interval_ms, "10000", 1, IMAX),
    KEY_INT("transaction.remove.expired.transaction.cleanup.interval.ms",
            transaction_remove_expired_transaction_cleanup_interval_ms, "3600000", 1, IMAX),
    KEY_INT("producer.id.expiration.ms", producer_id_expiration_ms, "86400000", 1, IMAX),
    KEY_INT("producer.id.expiration.check.interval.ms", producer_id_expiration_check_interval_ms,
            "600000", 1, IMAX),

    KEY_INT("share.coordinator.state.topic.num.partitions",
            share_coordinator_state_topic_num_partitions, "50", 1, IMAX),
    KEY_SHORT("share.coordinator.state.topic.replication.factor",
              share_coordinator_state_topic_replication_factor, "3", 1, INT16_MAX),
    KEY_SHORT("share.coordinator.state.topic.min.isr", share_coordinator_state_topic_min_isr, "2",
              1, INT16_MAX),
    KEY_INT("share.coordinator.state.topic.segment.bytes",
            share_coordinator_state_topic_segment_bytes, "104857600", 1, IMAX),
    KEY_INT("share.coordinator.load.buffer.size", share_coordinator_load_buffer_size, "5242880", 1,
            IMAX),
    KEY_INT("share.coordinator.snapshot.update.records.per.snapshot",
            share_coordinator_snapshot_update_records_per_snapshot, "500", 0, 500),
    KEY_INT("share.coordinator.write.timeout.ms", share_coordinator_write_timeout_ms, "5000", 1,
            IMAX),
    KEY_INT("share.coordinator.state.topic.prune.interval.ms",
            share_coordinator_state_topic_prune_interval_ms, "300000", 1, IMAX),

    KEY_STRING("zookeeper.connect", zookeeper_connect, NULL, NULL),
    KEY_INT("zookeeper.session.timeout.ms", zookeeper_session_timeout_ms, "18000", IMIN, IMAX),
    KEY_INT("zookeeper.connection.timeout.ms", zookeeper_connection_timeout_ms, NULL, IMIN, IMAX),
    KEY_INT("zookeeper.max.in.flight.requests", zookeeper_max_in_flight_requests, "10", 1, IMAX),
    KEY_BOOL("zookeeper.set.acl", zookeeper_set_acl, "false"),
    /*
     * Gregor's own: how old a /config/changes notification must be before
     * the brokers delete it. Kafka fixes this at 15 minutes
     * (changeExpirationMs); a key makes the purge testable.
     */
    KEY_LONG("gregor.config.change.expiration.ms", gregor_config_change_expiration_ms, "900000", 1,
             LMAX),
    /* Gregor's own: requests whose time outside a wait (total less remote)
     * reaches this are logged at WARN (handlers/slow_log.h); 0 turns it off. */
    KEY_LONG("gregor.request.slow.log.ms", gregor_request_slow_log_ms, "0", 0, LMAX),
    /*
     * Gregor's own: the broker's log lines (core/logging.h), text or one JSON
     * object per line, and the loggers' start-up thresholds ("net=DEBUG,
     * root=WARN"); BROKER_LOGGER changes the thresholds while running.
     */
    KEY_STRING("gregor.log.format", gregor_log_format, "text", log_formats),
    KEY_STRING("gregor.log.levels", gregor_log_levels, "", NULL), /* checked by resolve */

    /* ACLs (security/authorizer.h): an empty class name turns authorization off, as in Kafka. */
    KEY_STRING("authorizer.class.name", authorizer_class_name, "", NULL),
    KEY_STRING("super.users", super_users, NULL, NULL),
    KEY_BOOL("allow.everyone.if.no.acl.found", allow_everyone_if_no_acl_found, "false"),

    KEY_INT("num.replica.fetchers", num_replica_fetchers, "1", IMIN, IMAX),
    KEY_LONG("replica.lag.time.max.ms", replica_lag_time_max_ms, "30000", LMIN, LMAX),
    KEY_INT("replica.fetch.max.bytes", replica_fetch_max_bytes, "1048576", 0, IMAX),
    KEY_INT("replica.fetch.min.bytes", replica_fetch_min_bytes, "1", IMIN, IMAX),
    KEY_INT("replica.fetch.wait.max.ms", replica_fetch_wait_max_ms, "500", IMIN, IMAX),
    KEY_INT("replica.fetch.response.max.bytes", replica_fetch_response_max_bytes, "10485760", 0,
            IMAX),
    KEY_INT("replica.fetch.backoff.ms", replica_fetch_backoff_ms, "1000", 0, IMAX),
    KEY_INT("replica.socket.timeout.ms", replica_socket_timeout_ms, "30000", IMIN, IMAX),
    KEY_INT("replica.socket.receive.buffer.bytes", replica_socket_receive_buffer_bytes, "65536",
            IMIN, IMAX),
    KEY_LONG("replica.high.watermark.checkpoint.interval.ms",
             replica_high_watermark_checkpoint_interval_ms, "5000", LMIN, LMAX),
    KEY_STRING("replica.selector.class", replica_selector_class, NULL, NULL),
    /* Kafka's store default is JKS; Gregor reads PEM only and says so at start-up. */
    KEY_STRING("ssl.keystore.type", ssl_keystore_type, "JKS", NULL),
    KEY_STRING("ssl.keystore.location", ssl_keystore_location, NULL, NULL),
    KEY_STRING("ssl.keystore.password", ssl_keystore_password, NULL, NULL),
    KEY_STRING("ssl.keystore.certificate.chain", ssl_keystore_certificate_chain, NULL, NULL),
    KEY_STRING("ssl.keystore.key", ssl_keystore_key, NULL, NULL),
    KEY_STRING("ssl.key.password", ssl_key_password, NULL, NULL),
    KEY_STRING("ssl.truststore.type", ssl_truststore_type, "JKS", NULL),
    KEY_STRING("ssl.truststore.location", ssl_truststore_location, NULL, NULL),
    KEY_STRING("ssl.truststore.password", ssl_truststore_password, NULL, NULL),
    KEY_STRING("ssl.truststore.certificates", ssl_truststore_certificates, NULL, NULL),
    KEY_STRING("ssl.client.auth", ssl_client_auth, "none", ssl_client_auths),
    KEY_LIST("ssl.enabled.protocols", ssl_enabled_protocols, "TLSv1.2,TLSv1.3", NULL),
    KEY_STRING("ssl.protocol", ssl_protocol, "TLSv1.3", NULL),
    KEY_LIST("ssl.cipher.suites", ssl_cipher_suites, "", NULL),
    KEY_STRING("ssl.principal.mapping.rules", ssl_principal_mapping_rules, "DEFAULT", NULL),
    KEY_STRING("ssl.endpoint.identification.algorithm", ssl_endpoint_identification_algorithm,
               "https", NULL),
    KEY_BOOL("gregor.ssl.ktls.enable", gregor_ssl_ktls_enable, "true"),
    /* A keystore changed live must keep its certificate's DN and SANs unless these allow it. */
    KEY_BOOL("ssl.allow.dn.changes", ssl_allow_dn_changes, "false"),
    KEY_BOOL("ssl.allow.san.changes", ssl_allow_san_changes, "false"),
    /* Password configs set live are stored encrypted with this secret (metadata/password_codec.h);
     * without one they are refused, as Kafka does. */
    KEY_STRING("password.encoder.secret", password_encoder_secret, NULL, NULL),
    KEY_STRING("password.encoder.old.secret", password_encoder_old_secret, NULL, NULL),
    KEY_STRING("password.encoder.keyfactory.algorithm", password_encoder_keyfactory_algorithm, NULL,
               NULL),
    KEY_STRING("password.encoder.cipher.algorithm", password_encoder_cipher_algorithm,
               "AES/CBC/PKCS5Padding", NULL),
    KEY_INT("password.encoder.key.length", password_encoder_key_length, "128", 8, IMAX),
    KEY_INT("password.encoder.iterations", password_encoder_iterations, "4096", 1024, IMAX),

    /* The metrics and health listener (observe/http_server.h); empty: off. */
    KEY_STRING("gregor.http.listener", gregor_http_listener, "", NULL),
    KEY_INT("gregor.http.max.connections", gregor_http_max_connections, "32", 1, 1024),
    KEY_INT("gregor.http.max.connections.per.ip", gregor_http_max_connections_per_ip, "16", 1,
            1024),
    KEY_INT("gregor.http.connection.timeout.ms", gregor_http_connection_timeout_ms, "10000", 1000,
            3600000),
    KEY_INT("gregor.http.request.max.bytes", gregor_http_request_max_bytes, "16384", 4096, 1048576),

    /* SASL: Kafka's defaults (GSSAPI, which Gregor refuses at start-up if a SASL listener uses
     * it); per-listener values are listener.name.<l>.<key> (per_listener). */
    KEY_LIST("sasl.enabled.mechanisms", sasl_enabled_mechanisms, "GSSAPI", NULL),
    KEY_STRING("sasl.mechanism.inter.broker.protocol", sasl_mechanism_inter_broker_protocol,
               "GSSAPI", NULL),
    KEY_STRING("sasl.jaas.config", sasl_jaas_config, NULL, NULL),
    KEY_LONG("connections.max.reauth.ms", connections_max_reauth_ms, "0", 0, LMAX),
    KEY_INT("sasl.server.max.receive.size", sasl_server_max_receive_size, "524288", 1, IMAX),

    /* Client quotas: Kafka's defaults. */
    KEY_INT("quota.window.num", quota_window_num, "11", 1, IMAX),
    KEY_INT("quota.window.size.seconds", quota_window_size_seconds, "1", 1, IMAX),
    KEY_STRING("client.quota.callback.class", client_quota_callback_class, NULL, NULL),
};

#define KEY_COUNT (sizeof(config_table) / sizeof(config_table[0]))

_Static_assert(KEY_COUNT <= GR_CONFIG_KEY_MAX, "raise GR_CONFIG_KEY_MAX");

/* ---- lookups ------------------------------------------------------------ */

size_t gr_config_key_count(void)
{
    return KEY_COUNT;
}

const gr_config_def_t *gr_config_def_at(size_t i)
{
    assert(i < KEY_COUNT);
    return &config_table[i];
}

int gr_config_find(const char *name)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strcmp(config_table[i].name, name) == 0)
            return (int)i;
    return -1;
}
