/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin: the command-line admin tool, a Kafka client built on the
 * broker's own generated codec (the client side: requests encoded, responses
 * decoded). One blocking connection to the bootstrap broker; every command
 * is one or a few request/response round trips.
 *
 *   client.c   connection, ApiVersions negotiation, gr_admin_call
 *   options.c  Kafka-tool style --long options
 *   command_config.c  --command-config FILE (security.protocol, ssl.*, sasl.*)
 *   sasl_login.c      the SASL login on each connection
 *   output.c   aligned tables and JSON
 *   plan.c     Kafka's reassignment / election JSON files, --generate's proposal
 *   route.c    which broker a request goes to (controller, leader, coordinator)
 *   txn.c      kafka-transactions.sh's columns and abort target, from answers
 *   kafka_tools.c  the program called kafka-topics(.sh) etc.: that tool's command line
 *   records_json.c kafka-delete-records.sh's offset file; topic_filter.c
 *              kafka-get-offsets.sh's topic-partition rules; java_errors.c Kafka
 *              errors as Java tools print them; duration.c ISO-8601 durations;
 *              config_file.c kafka-configs.sh --add-config-file
 *   cmd_*.c    the commands (topics, configs, cluster, records, groups,
 *              leader-election, reassign-partitions, transactions, acls)
 *
 * Exit codes: GR_ADMIN_EXIT_*. Runs on: the main thread (single-threaded).
 */
#ifndef GR_ADMIN_ADMIN_H
#define GR_ADMIN_ADMIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/codec.h"
#include "protocol/kerr.h"

#define GR_ADMIN_EXIT_OK        0 /* everything asked was done */
#define GR_ADMIN_EXIT_FAILED    1 /* the broker answered with an error for some item */
#define GR_ADMIN_EXIT_USAGE     2 /* bad command line */
#define GR_ADMIN_EXIT_TRANSPORT 3 /* cannot connect, no answer, or API not supported */

#define GR_ADMIN_API_MAX     128
#define GR_ADMIN_OPTIONS_MAX 64
#define GR_ADMIN_ADDR_MAX    300

/* One parsed option: --name value (value NULL for a flag). */
struct gr_tls_ctx; /* net/tls.h */
struct gr_tls;

typedef struct gr_admin_opt {
    const char *name;
    const char *value;
} gr_admin_opt_t;

typedef struct gr_admin_options {
    gr_admin_opt_t items[GR_ADMIN_OPTIONS_MAX];
    int count;
    const char *words[4]; /* the command words: "topics", "list" */
    int word_count;
} gr_admin_options_t;

typedef struct gr_admin {
    int sock;
    struct gr_tls_ctx *tls;     /* from --command-config (security.protocol=SSL), or NULL */
    struct gr_tls *tls_session; /* on sock, when tls */
    int sasl_mechanism;         /* gr_sasl_mechanism_t, or -1: no SASL login */
    char *sasl_user;            /* from --command-config, freed at exit */
    char *sasl_password;
    int32_t correlation_id;
    gr_arena_t arena;                      /* responses live here until exit */
    int16_t max_version[GR_ADMIN_API_MAX]; /* broker's, -1 unsupported */
    bool json;
    bool kafka_tool; /* called by a Kafka tool's name: print exactly that tool's output */
    const gr_admin_options_t *opts;
    const char *bootstrap;        /* the --bootstrap-server address */
    char addr[GR_ADMIN_ADDR_MAX]; /* the broker connected to, HOST:PORT */
} gr_admin_t;

/* ---- client.c ---- */

/* Connects to host:port and asks ApiVersions. 0, or -1 (message printed). */
int gr_admin_connect(gr_admin_t *a, const char *bootstrap);
void gr_admin_close(gr_admin_t *a);
/*
 * Reads --command-config (if given) and builds the TLS context and SASL
 * login its security.protocol asks for, once. 0, or -1 (message printed).
 * gr_admin_security_fini frees them at exit.
 */
int gr_admin_security_setup(gr_admin_t *a);
void gr_admin_security_fini(gr_admin_t *a);

/* ---- sasl_login.c ---- */

/* Logs in on the fresh connection as --command-config says. 0, or -1 (printed). */
int gr_admin_sasl_login(gr_admin_t *a);

/*
 * The version to use for api: the highest both the broker and this tool
 * (up to want_max) support, or -1 (message printed).
 */
int16_t gr_admin_version(gr_admin_t *a, int16_t api, int16_t want_max);

/*
 * Sends req (the API's request struct) at version v and decodes the answer
 * into resp (its response struct; memory in a->arena). 0 or -1 (printed).
 */
int gr_admin_call(gr_admin_t *a, int16_t api, int16_t v, const void *req, void *resp);

/* The error code a controller-only API's response carries (its first item's). */
typedef int16_t (*gr_admin_error_of_fn)(const void *resp);

/*
 * For the APIs only the controller serves (CreateTopics, DeleteTopics,
 * CreatePartitions, ElectLeaders): moves the connection to the controller
 * that Metadata names, then calls as gr_admin_call at the highest version
 * both sides support (up to want_max). While the answer is NOT_CONTROLLER
 * or no controller is known (an election under way), refreshes and
 * retries for a bounded time, as Kafka's admin client does; the last
 * answer is then left in resp. 0 or -1 (printed).
 */
int gr_admin_controller_call(gr_admin_t *a, int16_t api, int16_t want_max, const void *req,
                             void *resp, gr_admin_error_of_fn error_of);

/* ---- route.c ---- */

/* A broker as Metadata lists it: its id and HOST:PORT. */
typedef struct gr_admin_broker {
    int32_t node_id;
    char addr[GR_ADMIN_ADDR_MAX];
} gr_admin_broker_t;

/* Milliseconds on the monotonic clock; a short pause between retries. */
int64_t gr_admin_now_ms(void);
void gr_admin_backoff(void);

/* Moves the connection to addr (HOST:PORT) unless it is there. 0 or -1 (printed). */
int gr_admin_move_to(gr_admin_t *a, const char *addr);
/* The brokers the bootstrap broker's Metadata lists, up to max. Count, or -1 (printed). */
int gr_admin_brokers(gr_admin_t *a, gr_admin_broker_t *out, int max);
/* Broker node_id as the bootstrap broker's Metadata names it. 0, or -1 (printed). */
int gr_admin_broker_find(gr_admin_t *a, int32_t node_id, gr_admin_broker_t *out);
/*
 * The leader of partition of topic, from the bootstrap broker's Metadata,
 * asked again for a bounded time while it has none (an election under
 * way). 0, or -1 (printed: unknown topic or partition, no leader).
 */
int gr_admin_partition_leader(gr_admin_t *a, const char *topic, int32_t partition,
                              gr_admin_broker_t *out);
/*
 * Metadata of one topic from the connected broker (requests.c): 0 with
 * out holding exactly that topic (its error_code may be set), or -1.
 */
struct gr_metadata_response;
int gr_admin_topic_metadata(gr_admin_t *a, gr_str_t topic, struct gr_metadata_response *out);
/*
 * ListOffsets v of partition at time ts, as a consumer: 0 with *error
 * (NONE: *offset set, else *offset -1), or -1 (no answer, printed).
 */
int gr_admin_list_offset(gr_admin_t *a, int16_t v, gr_str_t topic, int32_t partition, int64_t ts,
                         int64_t *offset, int16_t *error);
/*
 * As gr_admin_partition_leader, printing nothing about the partition:
 * 0 with *error NONE and *out set, or with *error the Kafka error that
 * stopped it (UNKNOWN_TOPIC_OR_PARTITION for a partition the topic does not
 * have; LEADER_NOT_AVAILABLE after the bounded wait) and *topic_error true
 * when Metadata gave that error for the whole topic. -1: no answer (printed).
 */
int gr_admin_partition_route(gr_admin_t *a, const char *topic, int32_t partition,
                             gr_admin_broker_t *out, int16_t *error /* out */,
                             bool *topic_error /* out */);
/*
 * The coordinator of group (FindCoordinator, key type GROUP, asked of the
 * bootstrap broker again for a bounded time while it is not available),
 * and moves the connection there. 0, or -1 (printed).
 */
int gr_admin_group_coordinator(gr_admin_t *a, const char *group, gr_admin_broker_t *out);

/* ---- options.c ---- */

/* Parses argv after the program name. 0, or -1 (message printed). */
int gr_admin_options_parse(gr_admin_options_t *o, int argc, char **argv);
/* The last value of --name, or NULL. */
const char *gr_admin_opt(const gr_admin_options_t *o, const char *name);
bool gr_admin_flag(const gr_admin_options_t *o, const char *name);
/* Every value of a repeatable --name, in order: fills out (up to max), returns the count. */
int gr_admin_opt_all(const gr_admin_options_t *o, const char *name, const char **out, int max);
/* Parses an int64 option; returns 0, 1 when absent (dflt kept), -1 when invalid (printed). */
int gr_admin_opt_long(const gr_admin_options_t *o, const char *name, int64_t *out);

/* ---- output.c ---- */

#define GR_TABLE_COLS_MAX 10

typedef struct gr_table {
    const char *headers[GR_TABLE_COLS_MAX];
    int cols;
    char ***rows;
    int count, cap;
} gr_table_t;

void gr_table_init(gr_table_t *t, const char *const *headers, int cols);
/* Adds a row of cols cells (copied; NULL prints empty). */
void gr_table_row(gr_table_t *t, const char *const *cells);
/* Prints the aligned table (headers first) and frees it. */
void gr_table_print(gr_table_t *t, FILE *out);

/* JSON: strings escaped; a NULL string prints null. */
void gr_json_str(FILE *out, const char *s);
void gr_json_strn(FILE *out, const char *s, int32_t len);

/* A copy of a protocol string as a C string in the arena ("" if null). */
char *gr_admin_text(gr_admin_t *a, gr_str_t s);

/* Prints "error: <what>: <ERROR_NAME> (<message>)" to stderr. */
void gr_admin_report(const char *what, int16_t code, gr_str_t message);

/* ---- java_errors.c ---- */

/*
 * Kafka error code as Kafka's Java tools print a failed future:
 * "org.apache.kafka.common.errors.<Exception>: <message>", message the
 * code's default text when NULL; the Kafka error name for a code outside
 * its table. Written into buf (size bytes, always terminated).
 */
void gr_admin_java_error(int16_t code, const char *message, char *buf, size_t size);

/* ---- duration.c ---- */

/*
 * An ISO-8601 duration as Java's Duration.parse reads it ("P1D",
 * "PT1H30M", "PT0.5S", "-PT6H") into milliseconds. 0, or -1 when text is
 * not one.
 */
int gr_admin_duration_parse(const char *text, int64_t *out_ms /* out */);

/* ---- commands ---- */

int gr_admin_cmd_topics(gr_admin_t *a);
int gr_admin_cmd_configs(gr_admin_t *a);
/* configs for --entity-type users (SCRAM credentials): cmd_configs_users.c. */
int gr_admin_configs_users(gr_admin_t *a, bool describe);
/* configs for client quotas (cmd_configs_quotas.c): whether the options name a quota entity. */
bool gr_admin_configs_is_quota(const gr_admin_t *a);
int gr_admin_cmd_configs_quotas(gr_admin_t *a);
int gr_admin_cmd_cluster(gr_admin_t *a);
int gr_admin_cmd_records(gr_admin_t *a);
int gr_admin_cmd_groups(gr_admin_t *a);
int gr_admin_cmd_share_groups(gr_admin_t *a);
int gr_admin_cmd_election(gr_admin_t *a);
int gr_admin_cmd_reassign(gr_admin_t *a);
int gr_admin_cmd_transactions(gr_admin_t *a);
int gr_admin_cmd_acls(gr_admin_t *a);
int gr_admin_cmd_get_offsets(gr_admin_t *a);

#endif
