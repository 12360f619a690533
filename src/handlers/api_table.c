/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The APIs this broker serves and the versions it advertises. An API appears
 * here only when every listed version really works; the codec knows more.
 * Produce starts at 3 and Fetch at 4: message formats before v2 are not
 * supported (as in Kafka 4.0).
 */
#include "gen/alter_configs.h"
#include "gen/api_versions.h"
#include "gen/create_partitions.h"
#include "gen/create_topics.h"
#include "gen/delete_groups.h"
#include "gen/delete_records.h"
#include "gen/delete_topics.h"
#include "gen/describe_cluster.h"
#include "gen/describe_configs.h"
#include "gen/describe_groups.h"
#include "gen/describe_log_dirs.h"
#include "gen/describe_producers.h"
#include "gen/elect_leaders.h"
#include "gen/fetch.h"
#include "gen/find_coordinator.h"
#include "gen/heartbeat.h"
#include "gen/incremental_alter_configs.h"
#include "gen/init_producer_id.h"
#include "gen/join_group.h"
#include "gen/leader_and_isr.h"
#include "gen/leave_group.h"
#include "gen/list_groups.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"
#include "gen/offset_commit.h"
#include "gen/offset_delete.h"
#include "gen/offset_fetch.h"
#include "gen/offset_for_leader_epoch.h"
#include "gen/produce.h"
#include "gen/stop_replica.h"
#include "gen/sync_group.h"
#include "gen/update_metadata.h"
#include "handlers/request.h"
#include "handlers/handlers.h"

const gr_api_handler_t gr_api_handlers[] = {
    {GR_API_PRODUCE, 3, 11, gr_handle_produce},
    {GR_API_FETCH, 4, 16, gr_handle_fetch},
    {GR_API_LIST_OFFSETS, 0, 8, gr_handle_list_offsets},
    {GR_API_METADATA, 0, 12, gr_handle_metadata},
    {GR_API_LEADER_AND_ISR, 0, 7, gr_handle_controller_request},
    {GR_API_STOP_REPLICA, 0, 4, gr_handle_controller_request},
    {GR_API_UPDATE_METADATA, 0, 8, gr_handle_controller_request},
    {GR_API_OFFSET_COMMIT, 0, 9, gr_handle_offset_commit},
    {GR_API_OFFSET_FETCH, 0, 9, gr_handle_offset_fetch},
    {GR_API_FIND_COORDINATOR, 0, 5, gr_handle_find_coordinator},
    {GR_API_JOIN_GROUP, 0, 9, gr_handle_join_group},
    {GR_API_HEARTBEAT, 0, 4, gr_handle_heartbeat},
    {GR_API_LEAVE_GROUP, 0, 5, gr_handle_leave_group},
    {GR_API_SYNC_GROUP, 0, 5, gr_handle_sync_group},
    {GR_API_DESCRIBE_GROUPS, 0, 5, gr_handle_describe_groups},
    {GR_API_LIST_GROUPS, 0, 5, gr_handle_list_groups},
    {GR_API_API_VERSIONS, 0, 3, gr_handle_api_versions},
    {GR_API_CREATE_TOPICS, 0, 7, gr_handle_create_topics},
    {GR_API_DELETE_TOPICS, 0, 6, gr_handle_delete_topics},
    {GR_API_DELETE_RECORDS, 0, 2, gr_handle_delete_records},
    {GR_API_INIT_PRODUCER_ID, 0, 5, gr_handle_init_producer_id},
    {GR_API_OFFSET_FOR_LEADER_EPOCH, 0, 4, gr_handle_offset_for_leader_epoch},
    {GR_API_DESCRIBE_CONFIGS, 0, 4, gr_handle_describe_configs},
    {GR_API_ALTER_CONFIGS, 0, 2, gr_handle_alter_configs},
    {GR_API_DESCRIBE_LOG_DIRS, 0, 4, gr_handle_describe_log_dirs},
    {GR_API_CREATE_PARTITIONS, 0, 3, gr_handle_create_partitions},
    {GR_API_DELETE_GROUPS, 0, 2, gr_handle_delete_groups},
    {GR_API_ELECT_LEADERS, 0, 2, gr_handle_elect_leaders},
    {GR_API_INCREMENTAL_ALTER_CONFIGS, 0, 1, gr_handle_incremental_alter_configs},
    {GR_API_OFFSET_DELETE, 0, 0, gr_handle_offset_delete},
    {GR_API_DESCRIBE_CLUSTER, 0, 1, gr_handle_describe_cluster},
    {GR_API_DESCRIBE_PRODUCERS, 0, 0, gr_handle_describe_producers},
};

const size_t gr_api_handler_count = sizeof(gr_api_handlers) / sizeof(gr_api_handlers[0]);
