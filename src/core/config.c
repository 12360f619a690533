/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.properties parsing and the table of known broker keys.
 *
 * The properties reader follows the Java Properties format: natural lines end
 * at \n, \r or \r\n; a line whose first non-blank character is '#' or '!' is a
 * comment; a line ending in an odd number of backslashes continues on the next
 * one (whose leading blanks are dropped); the key runs to the first unescaped
 * '=', ':' or blank, then blanks and at most one '=' or ':' are skipped; the
 * escapes \t \n \r \f \uXXXX are decoded and any other \c stands for c. Values
 * are then trimmed, as Kafka trims before converting them.
 *
 * Within one load the last occurrence of a key wins, and only that one is
 * validated (a bad value that a later line or an override replaces is not an
 * error, as with Kafka, which validates the merged properties).
 *
 * Invariant: cfg->text[i] and cfg->source[i] describe the value held in key
 * i's field; table_check() (run by gr_config_init) asserts the table fits
 * GR_CONFIG_KEY_MAX.
 */
#include "core/config.h"
#include "core/file_read.h"
#include "core/kafka_version.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest server.properties accepted; real ones are a few KiB. */
#define GR_CONFIG_FILE_MAX (4 * 1024 * 1024)

#define MS_PER_MINUTE 60000LL
#define MS_PER_HOUR   3600000LL

static const char *const compression_types[] = {"uncompressed", "zstd",     "lz4", "snappy",
                                                "gzip",         "producer", NULL};
static const char *const timestamp_types[] = {"CreateTime", "LogAppendTime", NULL};
static const char *const cleanup_policies[] = {"compact", "delete", NULL};
static const char *const ssl_client_auths[] = {"none", "requested", "required", NULL};
static const char *const security_protocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL",
                                                 NULL};

const char *gr_security_protocol_name(gr_security_protocol_t p)
{
    return (size_t)p < sizeof security_protocols / sizeof *security_protocols - 1
               ? security_protocols[p]
               : "UNKNOWN";
}

int gr_security_protocol_parse(const char *name, size_t len, gr_security_protocol_t *out)
{
    for (int k = 0; security_protocols[k] != NULL; k++) {
        if (strlen(security_protocols[k]) == len && memcmp(security_protocols[k], name, len) == 0) {
            *out = (gr_security_protocol_t)k;
            return 0;
        }
    }
    return -EINVAL;
}

const gr_listener_spec_t *gr_listener_spec_find(const gr_listener_spec_t *specs, int count,
                                                const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    return NULL;
}

/* Kafka's default listener.security.protocol.map: each protocol names itself. */
#define DEFAULT_PROTOCOL_MAP                                                                       \
    "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"

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
#define KEY_STRING_CHECKED(n, f, d, check)                                                         \
    {                                                                                              \
        .name = n, .type = GR_CONFIG_STRING, .default_value = d, .offset = FIELD(f),               \
        .known = check                                                                             \
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
               DEFAULT_PROTOCOL_MAP, NULL),
    KEY_STRING("inter.broker.listener.name", inter_broker_listener_name, NULL, NULL),
    KEY_STRING("security.inter.broker.protocol", security_inter_broker_protocol, "PLAINTEXT",
               security_protocols),
    KEY_STRING_CHECKED("inter.broker.protocol.version", inter_broker_protocol_version, "3.8-IV0",
                       gr_kafka_version_known),
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

    KEY_INT("num.partitions", num_partitions, "1", 1, IMAX),
    KEY_INT("default.replication.factor", default_replication_factor, "1", 1, IMAX),
    KEY_BOOL("auto.create.topics.enable", auto_create_topics_enable, "true"),
    KEY_BOOL("delete.topic.enable", delete_topic_enable, "true"),
    KEY_INT("message.max.bytes", message_max_bytes, "1048588", 0, IMAX),
    KEY_INT("fetch.max.bytes", fetch_max_bytes, "57671680", 1024, IMAX),
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
                       gr_kafka_version_known),
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
    KEY_INT("offset.metadata.max.bytes", offset_metadata_max_bytes, "4096", 0, IMAX),

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

/* ---- small helpers -------------------------------------------------------- */

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Java's String.trim: drops characters <= ' ' at both ends. */
static void trim_span(const char **s, size_t *len)
{
    while (*len > 0 && (unsigned char)(*s)[0] <= ' ') {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && (unsigned char)(*s)[*len - 1] <= ' ')
        (*len)--;
}

static void list_free(gr_config_list_t *l)
{
    for (int i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

/* Splits text on commas, trimming items and dropping empty ones. */
static int list_split(const char *text, gr_config_list_t *out)
{
    gr_config_list_t l = {NULL, 0};
    const char *p = text;

    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *item = p;

        trim_span(&item, &len);
        if (len > 0) {
            char **items = realloc(l.items, sizeof(char *) * (size_t)(l.count + 1));
            if (items == NULL)
                goto fail;
            l.items = items;
            l.items[l.count] = strndup(item, len);
            if (l.items[l.count] == NULL)
                goto fail;
            l.count++;
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *out = l;
    return 0;
fail:
    list_free(&l);
    return -ENOMEM;
}

static bool in_set(const char *const *set, const char *s)
{
    for (; *set != NULL; set++)
        if (strcmp(*set, s) == 0)
            return true;
    return false;
}

static void describe_set(const char *const *set, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (; *set != NULL && n < size; set++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", *set);
}

/* Java's Long.parseLong: optional sign, decimal digits, nothing else. */
static bool parse_int64(const char *s, int64_t *out)
{
    bool neg = false;
    uint64_t v = 0, limit;

    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (*s == '\0')
        return false;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static void *field_ptr(gr_config_t *cfg, const gr_config_def_t *def)
{
    return (char *)cfg + def->offset;
}

/* Frees the field's heap value (strings, lists) and zeroes it. */
static void field_clear(gr_config_t *cfg, const gr_config_def_t *def)
{
    void *f = field_ptr(cfg, def);

    switch (def->type) {
    case GR_CONFIG_STRING:
        free(*(char **)f);
        *(char **)f = NULL;
        break;
    case GR_CONFIG_LIST:
        list_free(f);
        break;
    case GR_CONFIG_BOOL:
        *(bool *)f = false;
        break;
    case GR_CONFIG_INT:
    case GR_CONFIG_SHORT:
        *(int32_t *)f = 0;
        break;
    case GR_CONFIG_LONG:
        *(int64_t *)f = 0;
        break;
    case GR_CONFIG_DOUBLE:
        *(double *)f = 0;
        break;
    }
}

static const char *type_word(gr_config_type_t t)
{
    switch (t) {
    case GR_CONFIG_BOOL:
        return "a boolean (true or false)";
    case GR_CONFIG_INT:
        return "a 32-bit integer";
    case GR_CONFIG_SHORT:
        return "a 16-bit integer";
    case GR_CONFIG_LONG:
        return "a 64-bit integer";
    case GR_CONFIG_DOUBLE:
        return "a number";
    default:
        return "a string";
    }
}

static void type_error(const gr_config_def_t *def, const char *value, char *err, size_t errlen)
{
    seterr(err, errlen, "invalid value '%s' for configuration %s: not %s", value, def->name,
           type_word(def->type));
}

/*
 * Converts text (trimmed, NUL-terminated) for def and stores it in cfg,
 * replacing the old value. value NULL stores Kafka's null. Returns 0, -EINVAL
 * with err, or -ENOMEM; on error the old value is kept.
 */
static int store_value(gr_config_t *cfg, size_t idx, const char *value, gr_config_source_t source,
                       char *err, size_t errlen)
{
    const gr_config_def_t *def = &config_table[idx];
    void *f = field_ptr(cfg, def);
    char *text = NULL;
    char set_text[256];

    /* An empty value for a key whose default is null means "unset". */
    if (value != NULL && value[0] == '\0' && def->default_value == NULL &&
        (def->type == GR_CONFIG_STRING || def->type == GR_CONFIG_LIST))
        value = NULL;
    if (value != NULL) {
        text = strdup(value);
        if (text == NULL)
            return -ENOMEM;
    }

    switch (value == NULL ? -1 : (int)def->type) {
    case -1:
        field_clear(cfg, def);
        break;
    case GR_CONFIG_BOOL:
        if (strcasecmp(value, "true") != 0 && strcasecmp(value, "false") != 0) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        *(bool *)f = strcasecmp(value, "true") == 0;
        break;
    case GR_CONFIG_INT:
    case GR_CONFIG_SHORT:
    case GR_CONFIG_LONG: {
        int64_t v, tmin = def->type == GR_CONFIG_LONG    ? INT64_MIN
                          : def->type == GR_CONFIG_SHORT ? INT16_MIN
                                                         : INT32_MIN;
        int64_t tmax = def->type == GR_CONFIG_LONG    ? INT64_MAX
                       : def->type == GR_CONFIG_SHORT ? INT16_MAX
                                                      : INT32_MAX;
        if (!parse_int64(value, &v) || v < tmin || v > tmax) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        if ((v < def->min || v > def->max) && !(def->has_extra && v == def->extra)) {
            if (def->has_extra)
                seterr(err, errlen,
                       "invalid value '%s' for configuration %s: must be %lld or between %lld "
                       "and %lld",
                       value, def->name, (long long)def->extra, (long long)def->min,
                       (long long)def->max);
            else
                seterr(err, errlen,
                       "invalid value '%s' for configuration %s: must be between %lld and %lld",
                       value, def->name, (long long)def->min, (long long)def->max);
            goto fail;
        }
        if (def->type == GR_CONFIG_LONG)
            *(int64_t *)f = v;
        else
            *(int32_t *)f = (int32_t)v;
        break;
    }
    case GR_CONFIG_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (value[0] == '\0' || *end != '\0' || isnan(v)) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        if (v < def->min_double || v > def->max_double) {
            seterr(err, errlen,
                   "invalid value '%s' for configuration %s: must be between %g and %g", value,
                   def->name, def->min_double, def->max_double);
            goto fail;
        }
        *(double *)f = v;
        break;
    }
    case GR_CONFIG_STRING:
        if (def->allowed != NULL && !in_set(def->allowed, value)) {
            describe_set(def->allowed, set_text, sizeof(set_text));
            seterr(err, errlen, "invalid value '%s' for configuration %s: must be one of: %s",
                   value, def->name, set_text);
            goto fail;
        }
        if (def->known != NULL && !def->known(value)) {
            seterr(err, errlen, "invalid value '%s' for configuration %s: not a known version",
                   value, def->name);
            goto fail;
        }
        {
            char *copy = strdup(value);
            if (copy == NULL) {
                free(text);
                return -ENOMEM;
            }
            field_clear(cfg, def);
            *(char **)f = copy;
            break;
        }
    case GR_CONFIG_LIST: {
        gr_config_list_t l;
        if (list_split(value, &l) < 0) {
            free(text);
            return -ENOMEM;
        }
        for (int i = 0; def->allowed != NULL && i < l.count; i++) {
            if (!in_set(def->allowed, l.items[i])) {
                describe_set(def->allowed, set_text, sizeof(set_text));
                seterr(err, errlen,
                       "invalid value '%s' for configuration %s: '%s' is not one of: %s", value,
                       def->name, l.items[i], set_text);
                list_free(&l);
                goto fail;
            }
        }
        list_free(f);
        *(gr_config_list_t *)f = l;
        break;
    }
    }
    free(cfg->text[idx]);
    cfg->text[idx] = text;
    cfg->source[idx] = (uint8_t)source;
    return 0;

fail:
    free(text);
    return -EINVAL;
}

/* ---- public: keys ------------------------------------------------------- */

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

void gr_config_entry(const gr_config_t *cfg, size_t i, gr_config_entry_t *out)
{
    assert(i < KEY_COUNT);
    out->def = &config_table[i];
    out->value = cfg->text[i];
    out->source = (gr_config_source_t)cfg->source[i];
}

bool gr_config_is_null(const gr_config_t *cfg, const char *name)
{
    int i = gr_config_find(name);
    return i >= 0 && cfg->text[i] == NULL;
}

/* ---- public: life cycle ------------------------------------------------- */

int gr_config_init(gr_config_t *cfg)
{
    char err[256];

    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (config_table[i].default_value == NULL)
            continue;
        int rc = store_value(cfg, i, config_table[i].default_value, GR_CONFIG_SOURCE_DEFAULT, err,
                             sizeof(err));
        /* Defaults are constants in the table above: only memory can fail. */
        assert(rc != -EINVAL);
        if (rc < 0) {
            gr_config_fini(cfg);
            return rc;
        }
    }
    return 0;
}

void gr_config_fini(gr_config_t *cfg)
{
    for (size_t i = 0; i < KEY_COUNT; i++) {
        field_clear(cfg, &config_table[i]);
        free(cfg->text[i]);
        cfg->text[i] = NULL;
    }
    for (size_t i = 0; i < cfg->per_listener.count; i++) {
        free(cfg->per_listener.keys[i]);
        free(cfg->per_listener.values[i]);
    }
    free(cfg->per_listener.keys);
    free(cfg->per_listener.values);
    memset(&cfg->per_listener, 0, sizeof cfg->per_listener);
    list_free(&cfg->effective.log_dirs);
    gr_config_listeners_free(&cfg->effective.listeners);
    gr_config_listeners_free(&cfg->effective.advertised_listeners);
}

#define LISTENER_PREFIX "listener.name."

/* Lower-cases the listener part of "listener.name.<l>.<key>": Kafka writes it so, we accept any
 * case. */
static void lower_listener_part(char *key)
{
    for (char *p = key + strlen(LISTENER_PREFIX); *p && *p != '.'; p++)
        *p = (char)tolower((unsigned char)*p);
}

/* Keeps a "listener.name.<l>.<key>" setting as text; a later one replaces it. */
static int set_per_listener(gr_config_t *cfg, const char *raw_key, const char *value, size_t len)
{
    char *key = strdup(raw_key);
    char *v = key ? strndup(value, len) : NULL;
    if (!v) {
        free(key);
        return -ENOMEM;
    }
    lower_listener_part(key);
    for (size_t i = 0; i < cfg->per_listener.count; i++) {
        if (strcmp(cfg->per_listener.keys[i], key) == 0) {
            free(cfg->per_listener.values[i]);
            cfg->per_listener.values[i] = v;
            free(key);
            return 0;
        }
    }
    size_t n = cfg->per_listener.count + 1;
    char **keys = realloc(cfg->per_listener.keys, n * sizeof(*keys));
    if (keys)
        cfg->per_listener.keys = keys;
    char **values = keys ? realloc(cfg->per_listener.values, n * sizeof(*values)) : NULL;
    if (!values) {
        free(key);
        free(v);
        return -ENOMEM;
    }
    cfg->per_listener.values = values;
    cfg->per_listener.keys[n - 1] = key;
    cfg->per_listener.values[n - 1] = v;
    cfg->per_listener.count = n;
    return 0;
}

const char *gr_config_listener_value(const gr_config_t *cfg, const char *listener, const char *key)
{
    char full[GR_LISTENER_NAME_MAX + 256];
    int n = snprintf(full, sizeof full, LISTENER_PREFIX "%s.%s", listener ? listener : "", key);
    if (!listener || n < 0 || (size_t)n >= sizeof full)
        return NULL;
    lower_listener_part(full);
    for (size_t i = 0; i < cfg->per_listener.count; i++)
        if (strcmp(cfg->per_listener.keys[i], full) == 0)
            return cfg->per_listener.values[i];
    return NULL;
}

const char *gr_config_listener_text(const gr_config_t *cfg, const char *listener, const char *key,
                                    bool *out_explicit)
{
    const char *v = gr_config_listener_value(cfg, listener, key);
    if (v) {
        if (out_explicit)
            *out_explicit = true;
        return v;
    }
    int idx = gr_config_find(key);
    if (out_explicit)
        *out_explicit = idx >= 0 && cfg->source[idx] != GR_CONFIG_SOURCE_DEFAULT;
    return idx >= 0 ? cfg->text[idx] : NULL;
}

/* Sets key from a value whose trimming is still to do (value may be unterminated). */
static int set_span(gr_config_t *cfg, const char *key, const char *value, size_t len,
                    gr_config_source_t source, const char *origin, const gr_logger_t *log,
                    char *err, size_t errlen)
{
    int idx = gr_config_find(key);
    char *v;
    int rc;

    if (idx < 0 && strncmp(key, LISTENER_PREFIX, strlen(LISTENER_PREFIX)) == 0) {
        trim_span(&value, &len);
        return set_per_listener(cfg, key, value, len);
    }
    if (idx < 0) {
        gr_logf(log, GR_LOG_WARN, "config", "ignoring unknown configuration %s (from %s)", key,
                origin ? origin : "?");
        return 1;
    }
    trim_span(&value, &len);
    v = strndup(value, len);
    if (v == NULL)
        return -ENOMEM;
    rc = store_value(cfg, (size_t)idx, v, source, err, errlen);
    free(v);
    return rc;
}

int gr_config_set(gr_config_t *cfg, const char *key, const char *value, gr_config_source_t source,
                  const gr_logger_t *log, char *err, size_t errlen)
{
    return set_span(cfg, key, value, strlen(value), source,
                    source == GR_CONFIG_SOURCE_OVERRIDE ? "--override" : "file", log, err, errlen);
}

int gr_config_override(gr_config_t *cfg, const char *arg, const gr_logger_t *log, char *err,
                       size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char *key;
    int rc;

    if (eq == NULL || eq == arg) {
        seterr(err, errlen, "invalid override '%s': expected key=value", arg);
        return -EINVAL;
    }
    key = strndup(arg, (size_t)(eq - arg));
    if (key == NULL)
        return -ENOMEM;
    const char *k = key;
    size_t klen = strlen(key);
    trim_span(&k, &klen);
    key[(k - key) + (ptrdiff_t)klen] = '\0';
    rc = set_span(cfg, k, eq + 1, strlen(eq + 1), GR_CONFIG_SOURCE_OVERRIDE, "--override", log, err,
                  errlen);
    free(key);
    return rc;
}

/* ---- properties reader --------------------------------------------------- */

/* One key/value pair read from a properties text or an override. */
typedef struct prop {
    char *key;
    char *value;
    gr_config_source_t source;
} prop_t;

typedef struct props {
    prop_t *items;
    size_t count;
} props_t;

static void props_free(props_t *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->items[i].key);
        free(p->items[i].value);
    }
    free(p->items);
    p->items = NULL;
    p->count = 0;
}

/* Takes ownership of key and value (frees them on failure). */
static int props_add(props_t *p, char *key, char *value, gr_config_source_t source)
{
    prop_t *items = realloc(p->items, sizeof(prop_t) * (p->count + 1));

    if (items == NULL) {
        free(key);
        free(value);
        return -ENOMEM;
    }
    p->items = items;
    p->items[p->count++] = (prop_t){key, value, source};
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

static bool is_eol(char c)
{
    return c == '\n' || c == '\r';
}

/* Appends the UTF-8 encoding of code point cp (< 0x10000) to out. */
static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/*
 * Decodes the escapes of s[0..len) into a new string. A \uXXXX escape may
 * grow to 3 bytes from 6, so the output never outgrows the input. Returns
 * NULL with *bad set on a malformed \u escape, NULL without it on ENOMEM.
 */
static char *unescape(const char *s, size_t len, bool *bad)
{
    char *out = malloc(len + 1), *o = out;

    *bad = false;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            *o++ = s[i];
            continue;
        }
        if (++i == len)
            break; /* a lone trailing backslash is dropped */
        switch (s[i]) {
        case 't':
            *o++ = '\t';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'u': {
            unsigned cp = 0;
            if (len - i - 1 < 4) {
                *bad = true;
                free(out);
                return NULL;
            }
            for (int k = 1; k <= 4; k++) {
                char c = s[i + (size_t)k];
                int d = isdigit((unsigned char)c) ? c - '0'
                        : (c >= 'a' && c <= 'f')  ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F')  ? c - 'A' + 10
                                                  : -1;
                if (d < 0) {
                    *bad = true;
                    free(out);
                    return NULL;
                }
                cp = cp * 16 + (unsigned)d;
            }
            i += 4;
            o += put_utf8(o, cp);
            break;
        }
        default:
            *o++ = s[i];
            break;
        }
    }
    *o = '\0';
    return out;
}

/*
 * Splits one logical line (continuations already joined, escapes not yet
 * decoded) into key and value and adds them to props.
 */
static int read_pair(const char *line, size_t len, props_t *props, int lineno, const char *origin,
                     char *err, size_t errlen)
{
    size_t k = 0, v;
    bool bad;

    while (k < len) {
        char c = line[k];
        if (c == '\\') {
            k += 2;
            continue;
        }
        if (c == '=' || c == ':' || is_blank(c))
            break;
        k++;
    }
    if (k > len)
        k = len;
    v = k;
    while (v < len && is_blank(line[v]))
        v++;
    if (v < len && (line[v] == '=' || line[v] == ':')) {
        v++;
        while (v < len && is_blank(line[v]))
            v++;
    }
    char *key = unescape(line, k, &bad);
    if (key == NULL)
        goto fail;
    char *value = unescape(line + v, len - v, &bad);
    if (value == NULL) {
        free(key);
        goto fail;
    }
    return props_add(props, key, value, GR_CONFIG_SOURCE_FILE);
fail:
    if (!bad)
        return -ENOMEM;
    seterr(err, errlen, "%s:%d: malformed \\uXXXX escape", origin, lineno);
    return -EINVAL;
}

/* Reads Java properties text into props. Returns 0, -EINVAL with err, -ENOMEM. */
static int read_properties(const char *text, size_t len, const char *origin, props_t *props,
                           char *err, size_t errlen)
{
    char *line = NULL; /* the logical line being joined */
    size_t cap = 0, used = 0, pos = 0;
    int lineno = 0, rc = 0;

    while (pos < len) {
        int first_line = ++lineno;

        /* Leading blanks; a blank line or a comment line is skipped whole. */
        while (pos < len && is_blank(text[pos]))
            pos++;
        if (pos < len && (text[pos] == '#' || text[pos] == '!')) {
            while (pos < len && !is_eol(text[pos]))
                pos++;
        }
        if (pos == len || is_eol(text[pos])) {
            if (pos < len && text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')
                pos++;
            pos++;
            continue;
        }

        used = 0;
        for (;;) {
            size_t start = pos, backslashes = 0;
            while (pos < len && !is_eol(text[pos]))
                pos++;
            for (size_t i = pos; i > start && text[i - 1] == '\\'; i--)
                backslashes++;
            size_t n = pos - start;
            bool cont = backslashes % 2 == 1;
            if (cont)
                n--; /* the continuation backslash itself */
            if (used + n + 1 > cap) {
                size_t ncap = (used + n + 1) * 2;
                char *nl = realloc(line, ncap);
                if (nl == NULL) {
                    rc = -ENOMEM;
                    goto out;
                }
                line = nl;
                cap = ncap;
            }
            memcpy(line + used, text + start, n);
            used += n;
            /* Consume the line end (\r\n counts as one). */
            if (pos < len && text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')
                pos++;
            if (pos < len)
                pos++;
            if (!cont || pos >= len)
                break;
            lineno++;
            while (pos < len && is_blank(text[pos]))
                pos++;
        }
        rc = read_pair(line, used, props, first_line, origin, err, errlen);
        if (rc < 0)
            goto out;
    }
out:
    free(line);
    return rc;
}

/* Applies the last occurrence of each key in props, in order. */
static int apply_props(gr_config_t *cfg, const props_t *props, const char *origin,
                       const gr_logger_t *log, char *err, size_t errlen)
{
    for (size_t i = 0; i < props->count; i++) {
        bool later = false;
        for (size_t j = i + 1; j < props->count && !later; j++)
            later = strcmp(props->items[i].key, props->items[j].key) == 0;
        if (later)
            continue;
        const prop_t *p = &props->items[i];
        int rc = set_span(cfg, p->key, p->value, strlen(p->value), p->source,
                          p->source == GR_CONFIG_SOURCE_OVERRIDE ? "--override" : origin, log, err,
                          errlen);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gr_config_parse_text(gr_config_t *cfg, const char *text, size_t len, const char *origin,
                         const gr_logger_t *log, char *err, size_t errlen)
{
    props_t props = {NULL, 0};
    int rc = read_properties(text, len, origin ? origin : "properties", &props, err, errlen);

    if (rc == 0)
        rc = apply_props(cfg, &props, origin ? origin : "properties", log, err, errlen);
    props_free(&props);
    return rc;
}

/* Reads a whole file into a new buffer. Returns 0 or -errno (-EFBIG: too large). */
static int read_file(const char *path, char **out, size_t *out_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = gr_file_read_all(fd, GR_CONFIG_FILE_MAX, out, out_len);
    close(fd);
    return rc;
}

int gr_config_load_file(gr_config_t *cfg, const char *path, const gr_logger_t *log, char *err,
                        size_t errlen)
{
    char *buf;
    size_t len;
    int rc = read_file(path, &buf, &len);

    if (rc < 0) {
        seterr(err, errlen, "cannot read %s: %s", path, strerror(-rc));
        return rc;
    }
    rc = gr_config_parse_text(cfg, buf, len, path, log, err, errlen);
    free(buf);
    return rc;
}

int gr_config_load(gr_config_t *cfg, const char *path, const char *const *overrides, int n,
                   const gr_logger_t *log, char *err, size_t errlen)
{
    props_t props = {NULL, 0};
    char *buf = NULL;
    size_t len = 0;
    int rc = gr_config_init(cfg);

    if (rc < 0) {
        seterr(err, errlen, "out of memory");
        return rc;
    }
    if (path != NULL) {
        rc = read_file(path, &buf, &len);
        if (rc < 0) {
            seterr(err, errlen, "cannot read %s: %s", path, strerror(-rc));
            goto fail;
        }
        rc = read_properties(buf, len, path, &props, err, errlen);
        if (rc < 0)
            goto fail;
    }
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(overrides[i], '=');
        if (eq == NULL || eq == overrides[i]) {
            seterr(err, errlen, "invalid override '%s': expected key=value", overrides[i]);
            rc = -EINVAL;
            goto fail;
        }
        const char *k = overrides[i];
        size_t klen = (size_t)(eq - k);
        trim_span(&k, &klen);
        char *key = strndup(k, klen), *value = strdup(eq + 1);
        if (key == NULL || value == NULL) {
            free(key);
            free(value);
            rc = -ENOMEM;
            goto fail;
        }
        rc = props_add(&props, key, value, GR_CONFIG_SOURCE_OVERRIDE);
        if (rc < 0)
            goto fail;
    }
    rc = apply_props(cfg, &props, path ? path : "properties", log, err, errlen);
    if (rc < 0)
        goto fail;
    rc = gr_config_resolve(cfg, log, err, errlen);
    if (rc < 0)
        goto fail;
    props_free(&props);
    free(buf);
    return 0;
fail:
    if (rc == -ENOMEM)
        seterr(err, errlen, "out of memory while loading the configuration");
    props_free(&props);
    free(buf);
    gr_config_fini(cfg);
    return rc;
}

/* ---- listeners ---------------------------------------------------------- */

void gr_config_listeners_free(gr_listener_list_t *list)
{
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static void upper(char *s)
{
    for (; *s; s++)
        *s = (char)toupper((unsigned char)*s);
}

/*
 * Finds name's protocol in a "NAME:PROTOCOL,..." map. Returns 0 and *out,
 * 1 when the name is not in the map, -EINVAL with err for a malformed map.
 */
static int protocol_lookup(const char *map, const char *name, gr_security_protocol_t *out,
                           char *err, size_t errlen)
{
    gr_config_list_t entries;
    int rc = 1;

    if (list_split(map, &entries) < 0)
        return -ENOMEM;
    for (int i = 0; i < entries.count; i++) {
        char *e = entries.items[i], *colon = strchr(e, ':');
        if (colon == NULL || colon == e || colon[1] == '\0') {
            seterr(err, errlen,
                   "invalid listener.security.protocol.map entry '%s': expected NAME:PROTOCOL", e);
            rc = -EINVAL;
            break;
        }
        *colon = '\0';
        char *proto = colon + 1;
        upper(e);
        upper(proto);
        int p = -1;
        for (int k = 0; security_protocols[k] != NULL; k++)
            if (strcmp(security_protocols[k], proto) == 0)
                p = k;
        if (p < 0) {
            seterr(err, errlen,
                   "invalid listener.security.protocol.map entry '%s:%s': unknown security "
                   "protocol %s",
                   e, proto, proto);
            rc = -EINVAL;
            break;
        }
        if (rc == 1 && strcmp(e, name) == 0) {
            *out = (gr_security_protocol_t)p;
            rc = 0;
        }
    }
    list_free(&entries);
    return rc;
}

int gr_config_listeners_parse(const char *list, const char *protocol_map, gr_listener_list_t *out,
                              char *err, size_t errlen)
{
    gr_listener_list_t res = {NULL, 0};
    gr_config_list_t items;
    int rc;

    out->items = NULL;
    out->count = 0;
    if (protocol_map == NULL)
        protocol_map = DEFAULT_PROTOCOL_MAP;
    if (list_split(list, &items) < 0)
        return -ENOMEM;
    if (items.count > GR_LISTENERS_MAX) {
        seterr(err, errlen, "%d listeners: at most %d are supported", items.count,
               GR_LISTENERS_MAX);
        rc = -EINVAL;
        goto fail;
    }
    res.items = calloc((size_t)(items.count ? items.count : 1), sizeof(gr_listener_spec_t));
    if (res.items == NULL) {
        rc = -ENOMEM;
        goto fail;
    }
    for (int i = 0; i < items.count; i++) {
        const char *item = items.items[i];
        const char *sep = strstr(item, "://");
        gr_listener_spec_t *l = &res.items[res.count];
        const char *hp, *host, *port;
        size_t host_len;

        if (sep == NULL || sep == item || (size_t)(sep - item) >= sizeof(l->name)) {
            seterr(err, errlen, "invalid listener '%s': expected NAME://host:port", item);
            rc = -EINVAL;
            goto fail;
        }
        memcpy(l->name, item, (size_t)(sep - item));
        upper(l->name);
        hp = sep + 3;
        if (hp[0] == '[') {
            const char *close = strchr(hp, ']');
            if (close == NULL || close[1] != ':') {
                seterr(err, errlen, "invalid listener '%s': expected [ipv6-address]:port", item);
                rc = -EINVAL;
                goto fail;
            }
            host = hp + 1;
            host_len = (size_t)(close - host);
            port = close + 2;
        } else {
            const char *colon = strrchr(hp, ':');
            if (colon == NULL) {
                seterr(err, errlen, "invalid listener '%s': no port", item);
                rc = -EINVAL;
                goto fail;
            }
            host = hp;
            host_len = (size_t)(colon - hp);
            port = colon + 1;
        }
        int64_t portnum;
        if (!parse_int64(port, &portnum) || portnum < 0 || portnum > 65535 || port[0] == '+' ||
            port[0] == '-') {
            seterr(err, errlen, "invalid listener '%s': port must be a number from 0 to 65535",
                   item);
            rc = -EINVAL;
            goto fail;
        }
        if (host_len >= sizeof(l->host)) {
            seterr(err, errlen, "invalid listener '%s': host name too long", item);
            rc = -EINVAL;
            goto fail;
        }
        memcpy(l->host, host, host_len);
        l->port = (uint16_t)portnum;
        if (gr_listener_spec_find(res.items, res.count, l->name)) {
            seterr(err, errlen, "listener name %s appears more than once", l->name);
            rc = -EINVAL;
            goto fail;
        }
        rc = protocol_lookup(protocol_map, l->name, &l->protocol, err, errlen);
        if (rc == 1) {
            seterr(err, errlen,
                   "listener %s has no security protocol: add %s:PLAINTEXT to "
                   "listener.security.protocol.map",
                   l->name, l->name);
            rc = -EINVAL;
        }
        if (rc < 0)
            goto fail;
        res.count++;
    }
    list_free(&items);
    *out = res;
    return 0;
fail:
    list_free(&items);
    gr_config_listeners_free(&res);
    return rc;
}

/* ---- resolve -------------------------------------------------------------- */

static bool is_set(const gr_config_t *cfg, const char *name)
{
    return !gr_config_is_null(cfg, name);
}

int gr_config_resolve(gr_config_t *cfg, const gr_logger_t *log, char *err, size_t errlen)
{
    int rc;

    (void)log;

    list_free(&cfg->effective.log_dirs);
    gr_config_listeners_free(&cfg->effective.listeners);
    gr_config_listeners_free(&cfg->effective.advertised_listeners);

    /* Ids above reserved.broker.max.id are the generated ones (see core/broker_id.h). */
    if (cfg->broker_id_generation_enable && cfg->broker_id > cfg->reserved_broker_max_id) {
        seterr(err, errlen,
               "broker.id=%d is above reserved.broker.max.id=%d, which keeps the ids above it "
               "for generated ones: use a smaller id or raise reserved.broker.max.id",
               cfg->broker_id, cfg->reserved_broker_max_id);
        return -EINVAL;
    }
    if (!cfg->broker_id_generation_enable && cfg->broker_id < 0) {
        seterr(err, errlen,
               "broker.id=-1 asks for a generated id, but broker.id.generation.enable is "
               "false: set broker.id");
        return -EINVAL;
    }
    /* log.dirs wins over log.dir; both may hold comma-separated lists. */
    if (cfg->log_dirs.count > 0) {
        if (list_split(cfg->text[gr_config_find("log.dirs")], &cfg->effective.log_dirs) < 0)
            return -ENOMEM;
    } else if (cfg->log_dir != NULL) {
        if (list_split(cfg->log_dir, &cfg->effective.log_dirs) < 0)
            return -ENOMEM;
    }
    if (cfg->effective.log_dirs.count == 0) {
        seterr(err, errlen, "no log directory: set log.dirs (or log.dir)");
        return -EINVAL;
    }

    if (is_set(cfg, "log.retention.ms"))
        cfg->effective.log_retention_ms = cfg->log_retention_ms;
    else if (is_set(cfg, "log.retention.minutes"))
        cfg->effective.log_retention_ms = MS_PER_MINUTE * cfg->log_retention_minutes;
    else
        cfg->effective.log_retention_ms = MS_PER_HOUR * cfg->log_retention_hours;
    if (cfg->effective.log_retention_ms < 0)
        cfg->effective.log_retention_ms = -1;

    cfg->effective.log_roll_ms =
        is_set(cfg, "log.roll.ms") ? cfg->log_roll_ms : MS_PER_HOUR * cfg->log_roll_hours;
    cfg->effective.log_roll_jitter_ms = is_set(cfg, "log.roll.jitter.ms")
                                            ? cfg->log_roll_jitter_ms
                                            : MS_PER_HOUR * cfg->log_roll_jitter_hours;
    cfg->effective.log_flush_interval_ms = is_set(cfg, "log.flush.interval.ms")
                                               ? cfg->log_flush_interval_ms
                                               : cfg->log_flush_scheduler_interval_ms;
    cfg->effective.zookeeper_connection_timeout_ms = is_set(cfg, "zookeeper.connection.timeout.ms")
                                                         ? cfg->zookeeper_connection_timeout_ms
                                                         : cfg->zookeeper_session_timeout_ms;

    if (cfg->group_min_session_timeout_ms > cfg->group_max_session_timeout_ms) {
        seterr(err, errlen,
               "group.min.session.timeout.ms (%d) is above group.max.session.timeout.ms (%d)",
               cfg->group_min_session_timeout_ms, cfg->group_max_session_timeout_ms);
        return -EINVAL;
    }

    if (cfg->inter_broker_listener_name != NULL &&
        cfg->source[gr_config_find("security.inter.broker.protocol")] != GR_CONFIG_SOURCE_DEFAULT) {
        seterr(err, errlen,
               "set only one of inter.broker.listener.name and security.inter.broker.protocol");
        return -EINVAL;
    }

    const char *listeners = cfg->listeners ? cfg->listeners : "";
    rc = gr_config_listeners_parse(listeners, cfg->listener_security_protocol_map,
                                   &cfg->effective.listeners, err, errlen);
    if (rc < 0)
        return rc;
    if (cfg->effective.listeners.count == 0) {
        seterr(err, errlen, "listeners is empty: set at least one PLAINTEXT://host:port");
        return -EINVAL;
    }
    rc = gr_config_listeners_parse(
        cfg->advertised_listeners ? cfg->advertised_listeners : listeners,
        cfg->listener_security_protocol_map, &cfg->effective.advertised_listeners, err, errlen);
    if (rc < 0)
        return rc;
    for (int i = 0; i < cfg->effective.advertised_listeners.count; i++) {
        const gr_listener_spec_t *a = &cfg->effective.advertised_listeners.items[i];
        if (cfg->advertised_listeners != NULL &&
            (strcmp(a->host, "0.0.0.0") == 0 || strcmp(a->host, "::") == 0)) {
            seterr(err, errlen,
                   "advertised.listeners: listener %s advertises the wildcard address %s, which "
                   "clients cannot connect to",
                   a->name, a->host);
            return -EINVAL;
        }
        if (!gr_listener_spec_find(cfg->effective.listeners.items, cfg->effective.listeners.count,
                                   a->name)) {
            seterr(err, errlen, "advertised.listeners names %s, which is not in listeners",
                   a->name);
            return -EINVAL;
        }
    }
    char *name = cfg->effective.inter_broker_listener;
    snprintf(name, GR_LISTENER_NAME_MAX, "%s",
             cfg->inter_broker_listener_name ? cfg->inter_broker_listener_name
                                             : cfg->security_inter_broker_protocol);
    upper(name);
    if (!gr_listener_spec_find(cfg->effective.advertised_listeners.items,
                               cfg->effective.advertised_listeners.count, name)) {
        seterr(err, errlen,
               "the inter-broker listener %s (inter.broker.listener.name, else "
               "security.inter.broker.protocol) is not an advertised listener",
               name);
        return -EINVAL;
    }
    return 0;
}
