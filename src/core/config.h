/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker configuration: Kafka's server.properties, then --override key=value
 * arguments, into a typed gr_config_t.
 *
 * Known keys live in one const table in config_keys.c (Kafka's names, types, Kafka
 * 3.8 defaults, valid ranges and value sets); each entry points at its field in
 * gr_config_t. Loading is:
 *
 *     gr_config_init()          every key at its default (source DEFAULT)
 *     gr_config_parse_text()    properties text; later duplicates win
 *       / gr_config_load_file()
 *     gr_config_set()           one key; used for --override (source OVERRIDE)
 *     gr_config_resolve()       cross-key rules and derived values (effective)
 *     ...                       read fields; gr_config_fini() frees
 *
 * or all of it at once with gr_config_load(). A value is validated when it is
 * set; a bad value fails with a message naming key and value, and the broker
 * must refuse to start. Unknown keys are logged as warnings and ignored.
 *
 * Precedence rules applied by gr_config_resolve(), as Kafka's:
 *   log.retention.ms > log.retention.minutes > log.retention.hours
 *   log.roll.ms > log.roll.hours;  log.roll.jitter.ms > log.roll.jitter.hours
 *   log.dirs > log.dir
 *   log.flush.interval.ms, if unset, is log.flush.scheduler.interval.ms
 *   zookeeper.connection.timeout.ms, if unset, is zookeeper.session.timeout.ms
 *   advertised.listeners, if unset, is listeners
 *
 * Invariant: after gr_config_resolve() returned 0, every field holds a valid
 * value and cfg->effective is filled. Runs on: the main thread at start-up.
 */
#ifndef GR_CORE_CONFIG_H
#define GR_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/listeners.h"
#include "core/logging.h"

/* Room for per-key state; config_keys.c checks its table fits. */
#define GR_CONFIG_KEY_MAX 224

/* Value types, numbered as DescribeConfigs' ConfigType (v3+) numbers them. */
typedef enum gr_config_type {
    GR_CONFIG_BOOL = 1,
    GR_CONFIG_STRING = 2,
    GR_CONFIG_INT = 3,
    GR_CONFIG_SHORT = 4, /* stored in an int32_t field, range-checked to int16 */
    GR_CONFIG_LONG = 5,
    GR_CONFIG_DOUBLE = 6,
    GR_CONFIG_LIST = 7,
} gr_config_type_t;

/*
 * Where a key's value came from. DescribeConfigs reports DEFAULT as
 * DEFAULT_CONFIG, both FILE and OVERRIDE as STATIC_BROKER_CONFIG, and the
 * dynamic ones (metadata/broker_config_store.h) as DYNAMIC_DEFAULT_BROKER_CONFIG
 * and DYNAMIC_BROKER_CONFIG.
 */
typedef enum gr_config_source {
    GR_CONFIG_SOURCE_DEFAULT = 0,
    GR_CONFIG_SOURCE_FILE = 1,
    GR_CONFIG_SOURCE_OVERRIDE = 2,
    GR_CONFIG_SOURCE_DYNAMIC_DEFAULT = 3, /* /config/brokers/<default> */
    GR_CONFIG_SOURCE_DYNAMIC_BROKER = 4,  /* /config/brokers/<id> */
} gr_config_source_t;

/* A comma-separated list value, split and trimmed; empty items are kept out. */
typedef struct gr_config_list {
    char **items;
    int count;
} gr_config_list_t;

/*
 * Typed values, one field per known key (dots become underscores). A field
 * whose key is unset and has no default (Kafka's null) holds NULL for strings
 * and lists, 0 for numbers; gr_config_is_null() tells. Strings are owned.
 */
typedef struct gr_config {
    /* identity, listeners, network */
    int32_t broker_id;
    bool broker_id_generation_enable;
    int32_t reserved_broker_max_id;
    char *broker_rack;
    char *listeners;
    char *advertised_listeners;
    char *listener_security_protocol_map;
    char *inter_broker_listener_name;
    char *security_inter_broker_protocol;
    char *inter_broker_protocol_version;
    int32_t num_network_threads; /* accepted, unused: one loop thread */
    int32_t num_io_threads;      /* accepted, unused */
    int32_t background_threads;  /* accepted, unused */
    int32_t socket_send_buffer_bytes;
    int32_t socket_receive_buffer_bytes;
    int32_t socket_request_max_bytes;
    int32_t socket_listen_backlog_size;
    int32_t queued_max_requests;
    int64_t queued_max_request_bytes;
    int64_t connections_max_idle_ms;
    int32_t max_connections;
    int32_t max_connections_per_ip;
    char *max_connections_per_ip_overrides; /* "host:count,..." (broker/conn_limits.c) */
    int32_t max_connection_creation_rate;   /* connections a second */

    /* topics and messages */
    int32_t num_partitions;
    int32_t default_replication_factor;
    bool auto_create_topics_enable;
    bool delete_topic_enable;
    int32_t message_max_bytes;
    int32_t fetch_max_bytes;
    int32_t max_incremental_fetch_session_cache_slots; /* fetch sessions kept (KIP-227) */
    int32_t min_incremental_fetch_session_eviction_ms; /* idle time before one may be evicted */
    char *compression_type;
    int32_t compression_gzip_level;
    int32_t compression_lz4_level;
    int32_t compression_zstd_level;
    int32_t min_insync_replicas;
    bool unclean_leader_election_enable;
    bool auto_leader_rebalance_enable;
    int64_t leader_imbalance_check_interval_seconds;
    int32_t leader_imbalance_per_broker_percentage;
    bool controlled_shutdown_enable;
    int32_t controlled_shutdown_max_retries;
    int64_t controlled_shutdown_retry_backoff_ms;

    /* log */
    char *log_dir;
    gr_config_list_t log_dirs;
    int32_t log_segment_bytes;
    int64_t log_roll_ms;
    int32_t log_roll_hours;
    int64_t log_roll_jitter_ms;
    int32_t log_roll_jitter_hours;
    int64_t log_retention_ms;
    int32_t log_retention_minutes;
    int32_t log_retention_hours;
    int64_t log_retention_bytes;
    int64_t log_retention_check_interval_ms;
    int32_t log_index_interval_bytes;
    int32_t log_index_size_max_bytes;
    int64_t log_flush_interval_messages;
    int64_t log_flush_interval_ms;
    int64_t log_flush_scheduler_interval_ms;
    int32_t log_flush_offset_checkpoint_interval_ms;
    int32_t log_flush_start_offset_checkpoint_interval_ms;
    gr_config_list_t log_cleanup_policy;
    char *log_message_timestamp_type;
    int64_t log_message_timestamp_difference_max_ms;
    int64_t log_message_timestamp_before_max_ms;
    int64_t log_message_timestamp_after_max_ms;
    char *log_message_format_version;
    bool log_message_downconversion_enable;
    bool log_preallocate;
    int64_t log_segment_delete_delay_ms;
    int32_t num_recovery_threads_per_data_dir;
    bool log_cleaner_enable;
    int32_t log_cleaner_threads;
    int64_t log_cleaner_dedupe_buffer_size;
    int32_t log_cleaner_io_buffer_size;
    double log_cleaner_io_buffer_load_factor;
    double log_cleaner_io_max_bytes_per_second;
    int64_t log_cleaner_backoff_ms;
    int64_t log_cleaner_delete_retention_ms;
    double log_cleaner_min_cleanable_ratio;
    int64_t log_cleaner_min_compaction_lag_ms;
    int64_t log_cleaner_max_compaction_lag_ms;

    /* consumer groups and offsets */
    int32_t offsets_topic_num_partitions;
    int32_t offsets_topic_replication_factor;
    int32_t offsets_topic_segment_bytes;
    int32_t offsets_topic_compression_codec;
    int32_t offsets_retention_minutes;
    int64_t offsets_retention_check_interval_ms;
    int32_t offsets_commit_timeout_ms;
    int32_t offsets_commit_required_acks;
    int32_t offsets_load_buffer_size;
    int32_t group_initial_rebalance_delay_ms;
    int32_t group_min_session_timeout_ms;
    int32_t group_max_session_timeout_ms;
    int32_t group_max_size;
    int32_t group_consumer_heartbeat_interval_ms;
    int32_t group_consumer_min_heartbeat_interval_ms;
    int32_t group_consumer_max_heartbeat_interval_ms;
    int32_t group_consumer_session_timeout_ms;
    int32_t group_consumer_min_session_timeout_ms;
    int32_t group_consumer_max_session_timeout_ms;
    int32_t group_consumer_regex_refresh_interval_ms;
    int32_t group_consumer_max_size;
    gr_config_list_t group_consumer_assignors; /* the first is the default */
    char *group_consumer_migration_policy;     /* disabled, upgrade, downgrade, bidirectional */
    /* KIP-932 share groups (group.share.*). */
    int32_t group_share_heartbeat_interval_ms;
    int32_t group_share_min_heartbeat_interval_ms;
    int32_t group_share_max_heartbeat_interval_ms;
    int32_t group_share_session_timeout_ms;
    int32_t group_share_min_session_timeout_ms;
    int32_t group_share_max_session_timeout_ms;
    int32_t group_share_max_size;
    gr_config_list_t group_coordinator_rebalance_protocols; /* classic always; consumer */
    int32_t offset_metadata_max_bytes;
    int32_t group_share_record_lock_duration_ms;    /* how long a share consumer holds a record */
    int32_t group_share_delivery_count_limit;       /* deliveries before a record is archived */
    int32_t group_share_partition_max_record_locks; /* acquired records per share-partition */
    int32_t group_share_max_share_sessions;         /* share sessions on this broker */

    /* share coordinator (KIP-932): __share_group_state */
    int32_t share_coordinator_state_topic_num_partitions;
    int32_t share_coordinator_state_topic_replication_factor;
    int32_t share_coordinator_state_topic_min_isr;
    int32_t share_coordinator_state_topic_segment_bytes;
    int32_t share_coordinator_load_buffer_size;
    int32_t share_coordinator_snapshot_update_records_per_snapshot;
    int32_t share_coordinator_write_timeout_ms;
    int32_t share_coordinator_state_topic_prune_interval_ms;

    /* producers and transactions */
    int32_t transaction_state_log_num_partitions;
    int32_t transaction_state_log_replication_factor;
    int32_t transaction_state_log_min_isr;
    int32_t transaction_state_log_segment_bytes;
    int32_t transaction_state_log_load_buffer_size;
    int32_t transaction_max_timeout_ms;
    int32_t transactional_id_expiration_ms;
    int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms;
    int32_t transaction_remove_expired_transaction_cleanup_interval_ms;
    int32_t producer_id_expiration_ms;
    int32_t producer_id_expiration_check_interval_ms;

    /* ZooKeeper (cluster mode) */
    char *zookeeper_connect; /* NULL: single-node mode */
    int32_t zookeeper_session_timeout_ms;
    int32_t zookeeper_connection_timeout_ms;
    int32_t zookeeper_max_in_flight_requests;
    bool zookeeper_set_acl;
    int64_t gregor_config_change_expiration_ms; /* Gregor's own; Kafka: 15 minutes, fixed */
    int64_t gregor_request_slow_log_ms;         /* Gregor's own; 0: no slow-request log */
    char *gregor_log_format;                    /* "text" or "json" (core/logging.h) */
    char *gregor_log_levels;                    /* "logger=LEVEL,...": the start-up thresholds */

    /* ACLs */
    char *authorizer_class_name; /* "" (none), AclAuthorizer or StandardAuthorizer */
    char *super_users;           /* "User:a;User:b", NULL for none */
    bool allow_everyone_if_no_acl_found;

    /* replication */
    int32_t num_replica_fetchers;
    int64_t replica_lag_time_max_ms;
    int32_t replica_fetch_max_bytes;
    int32_t replica_fetch_min_bytes;
    int32_t replica_fetch_wait_max_ms;
    int32_t replica_fetch_response_max_bytes;
    int32_t replica_fetch_backoff_ms;
    int32_t replica_socket_timeout_ms;
    int32_t replica_socket_receive_buffer_bytes;
    int64_t replica_high_watermark_checkpoint_interval_ms;
    char *replica_selector_class;

    /* TLS (net/tls.h); each may be overridden per listener (gr_config_listener_text) */
    char *ssl_keystore_type;
    char *ssl_keystore_location;
    char *ssl_keystore_password; /* accepted, unused: PEM keystores have no store password */
    char *ssl_keystore_certificate_chain;
    char *ssl_keystore_key;
    char *ssl_key_password;
    char *ssl_truststore_type;
    char *ssl_truststore_location;
    char *ssl_truststore_password; /* accepted, unused */
    char *ssl_truststore_certificates;
    char *ssl_client_auth;
    gr_config_list_t ssl_enabled_protocols;
    char *ssl_protocol;
    gr_config_list_t ssl_cipher_suites;
    char *ssl_principal_mapping_rules;
    char *ssl_endpoint_identification_algorithm;
    bool gregor_ssl_ktls_enable; /* hidden: false forces the pread + SSL_write fallback */
    bool ssl_allow_dn_changes;   /* a keystore changed live may change its certificate's DN */
    bool ssl_allow_san_changes;  /* ... or drop subject alternative names */

    /* Encryption of password configs set live (metadata/password_codec.h) */
    char *password_encoder_secret; /* NULL: dynamic password configs refused */
    char *password_encoder_old_secret;
    char *password_encoder_keyfactory_algorithm; /* NULL: PBKDF2WithHmacSHA512 */
    char *password_encoder_cipher_algorithm;
    int32_t password_encoder_key_length;
    int32_t password_encoder_iterations;

    /* The metrics and health listener (observe/http_server.h) */
    char *gregor_http_listener;                 /* "", http://host:port or https://host:port */
    int32_t gregor_http_max_connections;        /* open HTTP connections at once */
    int32_t gregor_http_max_connections_per_ip; /* of those, from one address */
    int32_t gregor_http_connection_timeout_ms;  /* idle connections closed after (whole seconds) */
    int32_t gregor_http_request_max_bytes;      /* a connection's memory: request line, headers */

    /* SASL (src/security/) */
    gr_config_list_t sasl_enabled_mechanisms;
    char *sasl_mechanism_inter_broker_protocol;
    char *sasl_jaas_config;
    int64_t connections_max_reauth_ms;    /* 0: no re-authentication (KIP-368) */
    int32_t sasl_server_max_receive_size; /* frame limit on SASL listeners before login */

    /* Client quotas (src/quota/) */
    int32_t quota_window_num;          /* samples a rate is measured over */
    int32_t quota_window_size_seconds; /* length of each sample */
    char *client_quota_callback_class; /* only unset is supported */

    /* Derived by gr_config_resolve() from the precedence rules above. */
    struct {
        gr_config_list_t log_dirs; /* log.dirs, else log.dir; at least one */
        int64_t log_retention_ms;  /* -1: keep forever */
        int64_t log_roll_ms;
        int64_t log_roll_jitter_ms;
        int64_t log_flush_interval_ms;
        int32_t zookeeper_connection_timeout_ms;
        gr_listener_list_t listeners;
        gr_listener_list_t advertised_listeners;
        /* inter.broker.listener.name, else the listener named after
         * security.inter.broker.protocol (Kafka's rule), upper-cased. */
        char inter_broker_listener[GR_LISTENER_NAME_MAX];
    } effective;

    /* Per-key state, indexed like the key table. */
    char *text[GR_CONFIG_KEY_MAX];     /* value as set (trimmed), NULL for null */
    uint8_t source[GR_CONFIG_KEY_MAX]; /* gr_config_source_t */

    /* "listener.name.<listener>.<key>" settings, kept as text (see gr_config_listener_text). */
    struct {
        char **keys;
        char **values;
        size_t count;
    } per_listener;
} gr_config_t;

/* One known key, as the table in config_keys.c describes it. */
typedef struct gr_config_def {
    const char *name;
    gr_config_type_t type;
    const char *default_value;     /* NULL: Kafka's null */
    size_t offset;                 /* of the field in gr_config_t */
    int64_t min, max;              /* inclusive bounds for INT, SHORT and LONG */
    bool has_extra;                /* extra is valid too, outside [min, max] */
    int64_t extra;                 /* (compression.gzip.level: -1 or 1..9) */
    double min_double, max_double; /* inclusive bounds for DOUBLE */
    const char *const *allowed;    /* NULL-terminated valid strings (each list item), or NULL */
    bool (*known)(const char *);   /* STRING: the check of a value no fixed set lists, or NULL */
    const char *known_what;        /* what known accepts, for the error ("a known version") */
} gr_config_def_t;

/* What gr_config_entry() reports for one key. */
typedef struct gr_config_entry {
    const gr_config_def_t *def;
    const char *value; /* NULL for null */
    gr_config_source_t source;
} gr_config_entry_t;

/*
 * Sets every key to its default. Returns 0 or -ENOMEM (cfg is then safe to
 * pass to gr_config_fini()).
 */
int gr_config_init(gr_config_t *cfg);

/* Frees everything cfg owns; cfg may then be initialised again. */
void gr_config_fini(gr_config_t *cfg);

/*
 * Sets key to value (untrimmed text as in a properties file) from source.
 * Returns 0; 1 when the key is unknown (logged as a warning on log, which may
 * be NULL, and ignored); -EINVAL with a message in err (naming key and value)
 * when the value is invalid; -ENOMEM.
 */
int gr_config_set(gr_config_t *cfg, const char *key, const char *value, gr_config_source_t source,
                  const gr_logger_t *log, char *err, size_t errlen);

/*
 * Puts key back to Kafka's null (a key whose default is null, after a
 * dynamic value is removed). Returns 0 or -ENOENT (unknown key).
 */
int gr_config_unset(gr_config_t *cfg, const char *key);

/*
 * The effective log times from their synonyms, as Kafka picks them:
 * log_retention_ms from log.retention.ms, else .minutes, else .hours
 * (negative: -1, unlimited); log_roll_ms and log_roll_jitter_ms from .ms,
 * else .hours; log_flush_interval_ms from log.flush.interval.ms, else
 * log.flush.scheduler.interval.ms. gr_config_resolve calls it, and so does
 * whoever changes one of them later.
 */
void gr_config_resolve_log_times(gr_config_t *cfg);

/*
 * Parses Java properties text (len bytes; need not be NUL-terminated) and
 * sets each key with source GR_CONFIG_SOURCE_FILE. origin names the text in
 * messages (a file name). Returns 0, -EINVAL with err (the first bad value),
 * or -ENOMEM.
 */
int gr_config_parse_text(gr_config_t *cfg, const char *text, size_t len, const char *origin,
                         const gr_logger_t *log, char *err, size_t errlen);

/* Reads path and parses it as above. Returns as above, or -errno of open/read. */
int gr_config_load_file(gr_config_t *cfg, const char *path, const gr_logger_t *log, char *err,
                        size_t errlen);

/*
 * Applies one "key=value" command-line override (source OVERRIDE). Returns as
 * gr_config_set(), or -EINVAL when arg has no '='.
 */
int gr_config_override(gr_config_t *cfg, const char *arg, const gr_logger_t *log, char *err,
                       size_t errlen);

/*
 * Checks rules between keys and fills cfg->effective. Returns 0, -EINVAL with
 * err (e.g. no log directory, unsupported listener security protocol,
 * group.min.session.timeout.ms above the max), or -ENOMEM.
 */
int gr_config_resolve(gr_config_t *cfg, const gr_logger_t *log, char *err, size_t errlen);

/*
 * The whole start-up sequence: init, file (path may be NULL), overrides (n
 * "key=value" strings), resolve. On failure cfg is finalised and err says why.
 * Returns 0 or a negative errno as the steps above.
 */
int gr_config_load(gr_config_t *cfg, const char *path, const char *const *overrides, int n,
                   const gr_logger_t *log, char *err, size_t errlen);

/* Number of known keys; entries are indexed 0..count-1 in table order. */
size_t gr_config_key_count(void);

/* The definition of key i (< gr_config_key_count()). */
const gr_config_def_t *gr_config_def_at(size_t i);

/* Index of a known key name, or -1. */
int gr_config_find(const char *name);

/* Fills *out with key i's definition, current value text and source. */
void gr_config_entry(const gr_config_t *cfg, size_t i, gr_config_entry_t *out /* out */);

/* True when the key (by name) is known and currently null (unset, no default). */
bool gr_config_is_null(const gr_config_t *cfg, const char *name);
/* Does group.coordinator.rebalance.protocols list protocol ("classic", "consumer")? */
bool gr_config_rebalance_protocol_enabled(const gr_config_t *cfg, const char *protocol);

/*
 * The value of listener.name.<listener in lower case>.<key> if set, else
 * NULL. The string belongs to cfg.
 */
const char *gr_config_listener_value(const gr_config_t *cfg, const char *listener, const char *key);

/*
 * The text of key for one listener, as Kafka resolves per-listener settings:
 * gr_config_listener_value if set, else key's own value (NULL when null).
 * With out_explicit (may be NULL): whether the value was configured rather
 * than left at its default. The string belongs to cfg.
 */
const char *gr_config_listener_text(const gr_config_t *cfg, const char *listener, const char *key,
                                    bool *out_explicit /* out */);

#endif
