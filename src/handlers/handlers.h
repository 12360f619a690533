/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request handlers, one file per API family. Each takes the broker and the
 * request, decodes the body with the generated codec, and completes (or
 * defers) the request's response slot. Runs on: loop thread.
 */
#ifndef GR_HANDLERS_HANDLERS_H
#define GR_HANDLERS_HANDLERS_H

#include "handlers/request.h"
#include "metadata/topics.h"

void gr_handle_api_versions(gr_broker_t *b, gr_request_t *req);
/* Fills the API list of an ApiVersions response (every advertised version). */
typedef struct gr_api_versions_response gr_api_versions_response_t;
void gr_broker_fill_api_versions(gr_broker_t *b, gr_request_t *req,
                                 gr_api_versions_response_t *resp);
void gr_handle_metadata(gr_broker_t *b, gr_request_t *req);
void gr_handle_produce(gr_broker_t *b, gr_request_t *req);
void gr_handle_fetch(gr_broker_t *b, gr_request_t *req);
void gr_handle_list_offsets(gr_broker_t *b, gr_request_t *req);
void gr_handle_offset_for_leader_epoch(gr_broker_t *b, gr_request_t *req);
void gr_handle_create_topics(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_topics(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_configs(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_configs(gr_broker_t *b, gr_request_t *req);
void gr_handle_incremental_alter_configs(gr_broker_t *b, gr_request_t *req);
void gr_handle_create_partitions(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_records(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_cluster(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_log_dirs(gr_broker_t *b, gr_request_t *req);
void gr_handle_elect_leaders(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_partition_reassignments(gr_broker_t *b, gr_request_t *req);
void gr_handle_list_partition_reassignments(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_partition(gr_broker_t *b, gr_request_t *req);
void gr_handle_controlled_shutdown(gr_broker_t *b, gr_request_t *req);
void gr_handle_find_coordinator(gr_broker_t *b, gr_request_t *req);
void gr_handle_join_group(gr_broker_t *b, gr_request_t *req);
void gr_handle_sync_group(gr_broker_t *b, gr_request_t *req);
/* The answers to a JoinGroup/SyncGroup that waited in its group (gr_coordinator_set_responders). */
struct gr_group_waiter;
struct gr_join_result;
struct gr_sync_result;
void gr_group_membership_respond_join(void *opaque, struct gr_group_waiter *w,
                                      const struct gr_join_result *r);
void gr_group_membership_respond_sync(void *opaque, struct gr_group_waiter *w,
                                      const struct gr_sync_result *r);
void gr_handle_heartbeat(gr_broker_t *b, gr_request_t *req);
/* KIP-848 consumer groups (consumer_group_heartbeat.c, consumer_group_describe.c). */
void gr_handle_consumer_group_heartbeat(gr_broker_t *b, gr_request_t *req);
void gr_handle_share_fetch(gr_broker_t *b, gr_request_t *req);
void gr_handle_share_acknowledge(gr_broker_t *b, gr_request_t *req);
void gr_handle_consumer_group_describe(gr_broker_t *b, gr_request_t *req);
/* KIP-932 share groups (share_group_heartbeat.c, share_group_describe.c). */
void gr_handle_share_group_heartbeat(gr_broker_t *b, gr_request_t *req);
void gr_handle_share_group_describe(gr_broker_t *b, gr_request_t *req);
/* The client's address as Kafka reports it in groups: "/host" (in req's arena). */
gr_str_t gr_group_client_host(gr_request_t *req);
void gr_handle_leave_group(gr_broker_t *b, gr_request_t *req);
void gr_handle_offset_commit(gr_broker_t *b, gr_request_t *req);
void gr_handle_offset_fetch(gr_broker_t *b, gr_request_t *req);
void gr_handle_offset_delete(gr_broker_t *b, gr_request_t *req);
/* TxnOffsetCommit: a transactional producer's offsets, pending until its marker. */
void gr_handle_txn_offset_commit(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_groups(gr_broker_t *b, gr_request_t *req);
void gr_handle_list_groups(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_groups(gr_broker_t *b, gr_request_t *req);
/* Share-group offsets admin, APIs 90-92 (share_group_offsets.c). */
void gr_handle_describe_share_group_offsets(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_share_group_offsets(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_share_group_offsets(gr_broker_t *b, gr_request_t *req);
void gr_handle_init_producer_id(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_producers(gr_broker_t *b, gr_request_t *req);
void gr_handle_add_partitions_to_txn(gr_broker_t *b, gr_request_t *req);
void gr_handle_add_offsets_to_txn(gr_broker_t *b, gr_request_t *req);
void gr_handle_end_txn(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_transactions(gr_broker_t *b, gr_request_t *req);
/* SASL (sasl.c): the two exchange APIs, and the gate request.c applies first. */
void gr_handle_sasl_handshake(gr_broker_t *b, gr_request_t *req);
void gr_handle_sasl_authenticate(gr_broker_t *b, gr_request_t *req);
/*
 * Whether req (header decoded) may be served in its connection's SASL state;
 * false means the connection must close (logged here).
 */
bool gr_sasl_gate_allows(gr_broker_t *b, gr_request_t *req);
/* A bare SASL token after SaslHandshake v0 (SASL_RAW): answered as a bare token. */
void gr_sasl_handle_raw(gr_broker_t *b, gr_request_t *req, const uint8_t *token, size_t len);
void gr_handle_describe_user_scram_credentials(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_user_scram_credentials(gr_broker_t *b, gr_request_t *req);
void gr_handle_list_transactions(gr_broker_t *b, gr_request_t *req);
/* Client quotas (client_quotas.c, client_quotas_alter.c). */
void gr_handle_describe_client_quotas(gr_broker_t *b, gr_request_t *req);
void gr_handle_alter_client_quotas(gr_broker_t *b, gr_request_t *req);
/* Transaction markers from a transaction coordinator (write_txn_markers.c). */
void gr_handle_write_txn_markers(gr_broker_t *b, gr_request_t *req);
/* The share coordinator's state RPCs 83-87 (share_group_state.c). */
void gr_handle_initialize_share_group_state(gr_broker_t *b, gr_request_t *req);
void gr_handle_read_share_group_state(gr_broker_t *b, gr_request_t *req);
void gr_handle_write_share_group_state(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_share_group_state(gr_broker_t *b, gr_request_t *req);
void gr_handle_read_share_group_state_summary(gr_broker_t *b, gr_request_t *req);
/* The ACL APIs (acls.c). */
void gr_handle_create_acls(gr_broker_t *b, gr_request_t *req);
void gr_handle_describe_acls(gr_broker_t *b, gr_request_t *req);
void gr_handle_delete_acls(gr_broker_t *b, gr_request_t *req);
/* LeaderAndIsr, StopReplica and UpdateMetadata. */
void gr_handle_controller_request(gr_broker_t *b, gr_request_t *req);

/*
 * Auto-creation for Metadata and Produce: returns the topic, creating it with
 * num.partitions when auto.create.topics.enable allows, else NULL with
 * *kerr set (UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION, ...).
 */
gr_topic_t *gr_topic_find_or_create(gr_broker_t *b, gr_str_t name, bool allow_create,
                                    gr_kerr_t *kerr);

#endif
