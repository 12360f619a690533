/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The APIs this broker serves and the versions it advertises. An API appears
 * here only when every listed version really works; the codec knows more.
 * Produce starts at 3 and Fetch at 4: message formats before v2 are not
 * supported (as in Kafka 4.0).
 */
#include "handlers/request.h"
#include "handlers/handlers.h"

const gr_api_handler_t gr_api_handlers[] = {
    {0, 3, 11, gr_handle_produce},
    {1, 4, 16, gr_handle_fetch},
    {2, 0, 8, gr_handle_list_offsets},
    {3, 0, 12, gr_handle_metadata},
    {4, 0, 7, gr_handle_leader_and_isr},
    {5, 0, 4, gr_handle_stop_replica},
    {6, 0, 8, gr_handle_update_metadata},
    {8, 0, 9, gr_handle_offset_commit},
    {9, 0, 9, gr_handle_offset_fetch},
    {10, 0, 5, gr_handle_find_coordinator},
    {11, 0, 9, gr_handle_join_group},
    {12, 0, 4, gr_handle_heartbeat},
    {13, 0, 5, gr_handle_leave_group},
    {14, 0, 5, gr_handle_sync_group},
    {15, 0, 5, gr_handle_describe_groups},
    {16, 0, 5, gr_handle_list_groups},
    {18, 0, 3, gr_handle_api_versions},
    {19, 0, 7, gr_handle_create_topics},
    {20, 0, 6, gr_handle_delete_topics},
    {21, 0, 2, gr_handle_delete_records},
    {22, 0, 5, gr_handle_init_producer_id},
    {23, 0, 4, gr_handle_offset_for_leader_epoch},
    {32, 0, 4, gr_handle_describe_configs},
    {33, 0, 2, gr_handle_alter_configs},
    {35, 0, 4, gr_handle_describe_log_dirs},
    {37, 0, 3, gr_handle_create_partitions},
    {42, 0, 2, gr_handle_delete_groups},
    {43, 0, 2, gr_handle_elect_leaders},
    {44, 0, 1, gr_handle_incremental_alter_configs},
    {47, 0, 0, gr_handle_offset_delete},
    {60, 0, 1, gr_handle_describe_cluster},
    {61, 0, 0, gr_handle_describe_producers},
};

const size_t gr_api_handler_count = sizeof(gr_api_handlers) / sizeof(gr_api_handlers[0]);
