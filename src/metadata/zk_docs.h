/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's ZooKeeper layout for cluster mode: the paths and the JSON of each
 * node, written and read exactly as ZooKeeper-mode Kafka 3.8 does, so
 * zkCli.sh shows what an operator expects and tools reading it keep working.
 *
 * Builders return 0 with the text in a writer (gr_zk_json_writer_finish) or
 * -ENOMEM; parsers return 0 or -EINVAL (malformed) / -ENOMEM.
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_METADATA_ZK_DOCS_H
#define GR_METADATA_ZK_DOCS_H

#include <stddef.h>
#include <stdint.h>

#include "metadata/topics.h"
#include "metadata/cluster_view.h"
#include "metadata/zk_json.h"
#include "protocol/types.h"

#define GR_ZK_BROKERS_PATH         "/brokers"
#define GR_ZK_BROKER_IDS_PATH      "/brokers/ids"
#define GR_ZK_BROKER_TOPICS_PATH   "/brokers/topics"
#define GR_ZK_BROKER_SEQID_PATH    "/brokers/seqid"
#define GR_ZK_CONTROLLER_PATH      "/controller"
#define GR_ZK_CONTROLLER_EPOCH     "/controller_epoch"
#define GR_ZK_ADMIN_PATH           "/admin"
#define GR_ZK_DELETE_TOPICS_PATH   "/admin/delete_topics"
#define GR_ZK_REASSIGN_PATH        "/admin/reassign_partitions"
#define GR_ZK_CONFIG_PATH          "/config"
#define GR_ZK_CONFIG_TOPICS_PATH   "/config/topics"
#define GR_ZK_CONFIG_BROKERS_PATH  "/config/brokers"
#define GR_ZK_CONFIG_CHANGES_PATH  "/config/changes"
#define GR_ZK_CONFIG_USERS_PATH    "/config/users"
#define GR_ZK_CONFIG_CLIENTS_PATH  "/config/clients"
#define GR_ZK_CONFIG_CHANGE_PREFIX "config_change_"
#define GR_ZK_CLUSTER_PATH         "/cluster"
#define GR_ZK_CLUSTER_ID_PATH      "/cluster/id"
#define GR_ZK_FEATURE_PATH         "/feature"
#define GR_ZK_ISR_CHANGE_PATH      "/isr_change_notification"

/* Leader value of a partition whose topic is being deleted (UpdateMetadata). */
#define GR_LEADER_DURING_DELETE (-2)

/* A partition's leadership, /brokers/topics/T/partitions/P/state. */
typedef struct gr_zk_partition_state {
    int32_t leader;
    int32_t leader_epoch;
    int32_t controller_epoch;
    int32_t *isr; /* malloc'd by the parser */
    int32_t isr_count;
} gr_zk_partition_state_t;

/*
 * A topic's assignment, /brokers/topics/T. During a reassignment (KIP-455)
 * a partition's replicas are the target's followed by the original ones
 * not in it; adding holds those being added (target minus original),
 * removing those to go (original minus target). adding and removing are
 * NULL when no partition is being reassigned, else per partition (count 0:
 * none).
 */
typedef struct gr_zk_assignment {
    gr_uuid_t id;
    bool has_id;
    int32_t partition_count;
    int32_t **replicas; /* per partition, malloc'd */
    int32_t *replica_counts;
    int32_t **adding; /* per partition, malloc'd; NULL: none anywhere */
    int32_t *adding_counts;
    int32_t **removing;
    int32_t *removing_counts;
} gr_zk_assignment_t;

/*
 * /brokers/ids/N: every endpoint with its listener's protocol, host and port
 * (the inter-broker endpoint), rack, timestamp.
 */
int gr_zk_doc_broker(gr_zk_json_writer_t *w, const gr_cluster_node_t *node, int64_t now_ms);
/*
 * Reads the endpoints (with their protocols), host and port (the endpoint of
 * listener, the reader's inter-broker listener; else the first one; else the
 * old "host"/"port" fields) and the rack into out (id set by caller).
 */
int gr_zk_parse_broker(const char *text, size_t len, const char *listener,
                       gr_cluster_node_t *out /* out, rack malloc'd */);

/* /controller: {"version":1,"brokerid":N,"timestamp":"..."}. */
int gr_zk_doc_controller(gr_zk_json_writer_t *w, int32_t broker_id, int64_t now_ms);
int gr_zk_parse_controller(const char *text, size_t len, int32_t *broker_id /* out */);

int gr_zk_doc_partition_state(gr_zk_json_writer_t *w, const gr_zk_partition_state_t *s);
int gr_zk_parse_partition_state(const char *text, size_t len, gr_zk_partition_state_t *out);
void gr_zk_partition_state_free(gr_zk_partition_state_t *s);

int gr_zk_doc_assignment(gr_zk_json_writer_t *w, const gr_zk_assignment_t *a);
/* Whether any partition of a is being reassigned (has adding or removing replicas). */
bool gr_zk_assignment_reassigning(const gr_zk_assignment_t *a);
int gr_zk_parse_assignment(const char *text, size_t len, gr_zk_assignment_t *out);
void gr_zk_assignment_free(gr_zk_assignment_t *a);

/* One partition's move asked in /admin/reassign_partitions. */
typedef struct gr_zk_move {
    char *topic; /* malloc'd */
    int32_t partition;
    int32_t *replicas; /* malloc'd */
    int32_t replica_count;
} gr_zk_move_t;

/*
 * /admin/reassign_partitions, as older kafka-reassign-partitions.sh writes it:
 * {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]},...]}
 * (log_dirs, if given, is not read). 0 with *moves (count of them, free with
 * gr_zk_moves_free), -EINVAL or -ENOMEM.
 */
int gr_zk_parse_moves(const char *text, size_t len, gr_zk_move_t **moves, int32_t *count);
/* The same document for count moves (a writer's text, as the builders above). */
int gr_zk_doc_moves(gr_zk_json_writer_t *w, const gr_zk_move_t *const *moves, int32_t count);
void gr_zk_moves_free(gr_zk_move_t *moves, int32_t count);

/* /config/topics/T: {"version":1,"config":{"<key>":"<value>",...}} from count key/value pairs. */
int gr_zk_doc_topic_config(gr_zk_json_writer_t *w, const gr_topic_config_t *configs, int count);
/*
 * Calls fn(ctx, key, value) for each entry of a config document's "config"
 * object (/config/topics, /config/brokers, /config/groups), stopping at the
 * first non-zero answer, which it returns. 0, -EINVAL (not such a
 * document), the parser's -errno, or fn's answer.
 */
typedef int gr_zk_config_entry_fn(void *ctx, const char *key, const gr_zk_json_t *value);
int gr_zk_doc_config_each(const char *text, size_t len, gr_zk_config_entry_fn *fn, void *ctx);

/*
 * The string values of the keys find knows (find: the key's index or -1)
 * into values[index], strdup'd (a value already there is freed); other
 * entries are skipped. 0, or -errno as gr_zk_doc_config_each (values may
 * then hold some: the caller frees them).
 */
int gr_zk_doc_config_known(const char *text, size_t len, int (*find)(const char *key),
                           char **values);

/* The same document as a NUL-terminated text of its own (*text, free it). 0 or -errno. */
int gr_zk_doc_config_text(const gr_topic_config_t *configs, int count, char **text,
                          size_t *text_len);

/* /config/changes/config_change_N: {"version":2,"entity_path":"topics/T"}. */
int gr_zk_doc_config_change(gr_zk_json_writer_t *w, const char *topic);
/* The topic a notification names, copied into out (NUL-terminated); -EINVAL for other entities. */
int gr_zk_parse_config_change(const char *text, size_t len, char *out, size_t out_len);
/*
 * The same for any entity type ("topics", "users", ...): the notification
 * {"version":2,"entity_path":"<type>/<name>"}, and its name for type.
 */
int gr_zk_doc_config_change_entity(gr_zk_json_writer_t *w, const char *type, const char *name);
int gr_zk_parse_config_change_entity(const char *text, size_t len, const char *type, char *out,
                                     size_t out_len);

/* Formats a decimal int32 ("/controller_epoch" holds one) and parses it back. */
int gr_zk_parse_int32(const char *text, size_t len, int32_t *out);

#endif
