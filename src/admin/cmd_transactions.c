/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin transactions, as kafka-transactions.sh has them:
 *   list               ListTransactions to every broker (each lists the
 *                      transactional ids it coordinates)
 *   describe           FindCoordinator (key type transaction), then
 *                      DescribeTransactions to that coordinator
 *   describe-producers DescribeProducers to the partition's leader
 *   abort              DescribeProducers to the partition's leader finds the
 *                      producer whose open transaction starts at
 *                      --start-offset, then WriteTxnMarkers (ABORT, with that
 *                      producer's epoch and coordinator epoch) to the same
 *                      leader: the way out of a hanging transaction whose
 *                      coordinator will never end it
 * Tables carry Kafka's column names; --json prints the same for scripts.
 * Coordinators being loaded or moving are asked again for a bounded time,
 * as Kafka's admin client does.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/txn.h"
#include "gen/describe_producers.h"
#include "gen/describe_transactions.h"
#include "gen/find_coordinator.h"
#include "gen/list_transactions.h"
#include "gen/write_txn_markers.h"

#define LIST_TRANSACTIONS_MAX_V     1
#define DESCRIBE_TRANSACTIONS_MAX_V 0
#define DESCRIBE_PRODUCERS_MAX_V    0
#define WRITE_TXN_MARKERS_MAX_V     1
#define FIND_COORDINATOR_MAX_V      4
#define FIND_COORDINATOR_BATCHED_V  4 /* keys in coordinator_keys from here on */
#define BROKERS_MAX                 1024
#define COORDINATOR_RETRY_MS        15000
#define PARTITIONS_TEXT_MAX         65536
#define MS_PER_SEC                  1000LL
#define NS_PER_MS                   1000000LL

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT transactions SUBCOMMAND [options] [--json]\n"
    "  list                                  every transactional id with its coordinator,\n"
    "                                        producer id and state (asks every broker)\n"
    "  describe --transactional-id T         T's state on its coordinator\n"
    "  describe-producers --topic T --partition P\n"
    "                                        the producers with state in partition P\n"
    "  abort --topic T --partition P --start-offset O\n"
    "        abort the hanging transaction that starts at offset O of the partition\n"
    "        (or --producer-id ID --producer-epoch E --coordinator-epoch C)\n";

static const char *const subcommands[] = {"list", "describe", "describe-producers", "abort", NULL};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

static char *number_text(gr_admin_t *a, int64_t n)
{
    char buf[GR_ADMIN_TXN_NUMBER_MAX];
    snprintf(buf, sizeof buf, "%lld", (long long)n);
    return gr_arena_strndup(&a->arena, buf, strlen(buf));
}

/* ---- list ---- */

/* One broker's ListTransactions rows, into table (or JSON). 0, or an exit code (printed). */
static int list_on(gr_admin_t *a, const gr_admin_broker_t *b, gr_table_t *table, int *json_items)
{
    if (gr_admin_move_to(a, b->addr))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t v = gr_admin_version(a, GR_API_LIST_TRANSACTIONS, LIST_TRANSACTIONS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_list_transactions_request_t req;
    gr_list_transactions_request_init(&req);
    gr_list_transactions_response_t resp;
    if (gr_admin_call(a, GR_API_LIST_TRANSACTIONS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        char what[64];
        snprintf(what, sizeof what, "listing the transactions of broker %d", b->node_id);
        gr_admin_report(what, resp.error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    char coordinator[16];
    snprintf(coordinator, sizeof coordinator, "%d", b->node_id);
    for (int32_t i = 0; i < resp.transaction_states_count; i++) {
        const gr_list_transactions_response_transaction_state_t *s = &resp.transaction_states[i];
        if (a->json) {
            printf("%s{\"transactional_id\":", (*json_items)++ ? "," : "");
            gr_json_strn(stdout, s->transactional_id.ptr, s->transactional_id.len);
            printf(",\"coordinator\":%d,\"producer_id\":%lld,\"state\":", b->node_id,
                   (long long)s->producer_id);
            gr_json_strn(stdout, s->transaction_state.ptr, s->transaction_state.len);
            printf("}");
            continue;
        }
        const char *row[] = {gr_admin_text(a, s->transactional_id), coordinator,
                             number_text(a, s->producer_id),
                             gr_admin_text(a, s->transaction_state)};
        gr_table_row(table, row);
    }
    return 0;
}

static int transactions_list(gr_admin_t *a)
{
    gr_admin_broker_t *brokers = gr_arena_alloc(&a->arena, BROKERS_MAX * sizeof(*brokers));
    int n = brokers ? gr_admin_brokers(a, brokers, BROKERS_MAX) : -1;
    if (n < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    const char *headers[] = {"TransactionalId", "Coordinator", "ProducerId", "TransactionState"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    int rc = GR_ADMIN_EXIT_OK, json_items = 0;
    if (a->json)
        printf("[");
    /* Every broker, even after one failed: what the others coordinate still shows. */
    for (int i = 0; i < n; i++) {
        int one = list_on(a, &brokers[i], &table, &json_items);
        rc = one > rc ? one : rc;
    }
    if (a->json)
        printf("]\n");
    else
        gr_table_print(&table, stdout);
    return rc;
}

/* ---- describe ---- */

/* Whether a coordinator answer means "ask again shortly". */
static bool coordinator_retriable(int16_t code)
{
    return code == GR_KERR_COORDINATOR_NOT_AVAILABLE ||
           code == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS || code == GR_KERR_NOT_COORDINATOR;
}

/*
 * FindCoordinator for transactional id once. Returns the error code of the
 * answer (node set when 0), or -1 on a transport failure (printed).
 */
static int find_txn_coordinator(gr_admin_t *a, const char *txn_id, int32_t *node /* out */)
{
    if (gr_admin_move_to(a, a->bootstrap))
        return -1;
    int16_t v = gr_admin_version(a, GR_API_FIND_COORDINATOR, FIND_COORDINATOR_MAX_V);
    if (v < 1) /* v0 knows groups only */
        return -1;
    gr_find_coordinator_request_t req;
    gr_find_coordinator_request_init(&req);
    gr_str_t key = gr_str(txn_id);
    req.key_type = GR_COORDINATOR_TYPE_TRANSACTION;
    if (v >= FIND_COORDINATOR_BATCHED_V) {
        req.coordinator_keys = &key;
        req.coordinator_keys_count = 1;
    } else {
        req.key = key;
    }
    gr_find_coordinator_response_t resp;
    if (gr_admin_call(a, GR_API_FIND_COORDINATOR, v, &req, &resp))
        return -1;
    if (v >= FIND_COORDINATOR_BATCHED_V) {
        if (resp.coordinators_count != 1) {
            fprintf(stderr, "error: FindCoordinator answered %d keys for one\n",
                    resp.coordinators_count);
            return -1;
        }
        *node = resp.coordinators[0].node_id;
        return resp.coordinators[0].error_code;
    }
    *node = resp.node_id;
    return resp.error_code;
}

/*
 * DescribeTransactions of txn_id on its coordinator, found again while the
 * coordinator is unknown, loading or moving. 0 with *out filled, or an exit
 * code (printed).
 */
static int describe_on_coordinator(gr_admin_t *a, const char *txn_id, int32_t *coordinator,
                                   gr_describe_transactions_response_transaction_state_t **out)
{
    int64_t deadline = gr_admin_now_ms() + COORDINATOR_RETRY_MS;
    for (;;) {
        int code = find_txn_coordinator(a, txn_id, coordinator);
        if (code < 0)
            return GR_ADMIN_EXIT_TRANSPORT;
        gr_admin_broker_t b;
        if (code == GR_KERR_NONE) {
            if (gr_admin_broker_find(a, *coordinator, &b) || gr_admin_move_to(a, b.addr))
                return GR_ADMIN_EXIT_TRANSPORT;
            int16_t v =
                gr_admin_version(a, GR_API_DESCRIBE_TRANSACTIONS, DESCRIBE_TRANSACTIONS_MAX_V);
            if (v < 0)
                return GR_ADMIN_EXIT_TRANSPORT;
            gr_describe_transactions_request_t req;
            gr_describe_transactions_request_init(&req);
            gr_str_t id = gr_str(txn_id);
            req.transactional_ids = &id;
            req.transactional_ids_count = 1;
            gr_describe_transactions_response_t resp;
            if (gr_admin_call(a, GR_API_DESCRIBE_TRANSACTIONS, v, &req, &resp))
                return GR_ADMIN_EXIT_TRANSPORT;
            if (resp.transaction_states_count != 1) {
                fprintf(stderr, "error: DescribeTransactions answered %d ids for one\n",
                        resp.transaction_states_count);
                return GR_ADMIN_EXIT_TRANSPORT;
            }
            code = resp.transaction_states[0].error_code;
            if (code == GR_KERR_NONE) {
                *out = &resp.transaction_states[0];
                return 0;
            }
        }
        if (!coordinator_retriable((int16_t)code) || gr_admin_now_ms() >= deadline) {
            fprintf(stderr,
                    "error: Failed to describe transaction state of transactional-id `%s`: "
                    "%s\n",
                    txn_id, gr_kerr_name((int16_t)code));
            return GR_ADMIN_EXIT_FAILED;
        }
        gr_admin_backoff();
    }
}

static int transactions_describe(gr_admin_t *a)
{
    const char *txn_id = gr_admin_need(a, "transactional-id");
    if (!txn_id)
        return GR_ADMIN_EXIT_USAGE;
    int32_t coordinator = -1;
    gr_describe_transactions_response_transaction_state_t *s = NULL;
    int rc = describe_on_coordinator(a, txn_id, &coordinator, &s);
    if (rc)
        return rc;
    char *parts = gr_arena_alloc(&a->arena, PARTITIONS_TEXT_MAX);
    if (!parts)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_admin_txn_partitions_text(s, parts, PARTITIONS_TEXT_MAX);
    char start[GR_ADMIN_TXN_NUMBER_MAX], duration[GR_ADMIN_TXN_NUMBER_MAX];
    gr_admin_txn_times(s->transaction_start_time_ms, wall_ms(), start, duration);
    if (a->json) {
        printf("{\"coordinator_id\":%d,\"transactional_id\":", coordinator);
        gr_json_str(stdout, txn_id);
        printf(",\"producer_id\":%lld,\"producer_epoch\":%d,\"state\":", (long long)s->producer_id,
               s->producer_epoch);
        gr_json_strn(stdout, s->transaction_state.ptr, s->transaction_state.len);
        printf(",\"transaction_timeout_ms\":%d,\"transaction_start_time_ms\":%lld,"
               "\"topic_partitions\":[",
               s->transaction_timeout_ms, (long long)s->transaction_start_time_ms);
        for (int32_t t = 0, n = 0; t < s->topics_count; t++)
            for (int32_t p = 0; p < s->topics[t].partitions_count; p++) {
                printf("%s{\"topic\":", n++ ? "," : "");
                gr_json_strn(stdout, s->topics[t].topic.ptr, s->topics[t].topic.len);
                printf(",\"partition\":%d}", s->topics[t].partitions[p]);
            }
        printf("]}\n");
        return GR_ADMIN_EXIT_OK;
    }
    const char *headers[] = {"CoordinatorId",
                             "TransactionalId",
                             "ProducerId",
                             "ProducerEpoch",
                             "TransactionState",
                             "TransactionTimeoutMs",
                             "CurrentTransactionStartTimeMs",
                             "TransactionDurationMs",
                             "TopicPartitions"};
    gr_table_t table;
    gr_table_init(&table, headers, 9);
    const char *row[] = {number_text(a, coordinator),
                         txn_id,
                         number_text(a, s->producer_id),
                         number_text(a, s->producer_epoch),
                         gr_admin_text(a, s->transaction_state),
                         number_text(a, s->transaction_timeout_ms),
                         start,
                         duration,
                         parts};
    gr_table_row(&table, row);
    gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

/* ---- describe-producers, abort ---- */

/* --topic and --partition. 0, or -1 (printed). */
static int partition_options(gr_admin_t *a, const char **topic, int32_t *partition)
{
    int64_t p = -1;
    *topic = gr_admin_need(a, "topic");
    if (!*topic)
        return -1;
    if (gr_admin_opt_long(a->opts, "partition", &p) != 0 || p < 0 || p > INT32_MAX) {
        fprintf(stderr, "error: --partition P (a partition number) is required\n");
        return -1;
    }
    *partition = (int32_t)p;
    return 0;
}

/*
 * DescribeProducers of one partition on its leader (the connection is
 * left there). 0 with *out filled, or an exit code (printed).
 */
static int describe_producers(gr_admin_t *a, const char *topic, int32_t partition,
                              gr_describe_producers_response_partition_response_t **out)
{
    gr_admin_broker_t leader;
    if (gr_admin_partition_leader(a, topic, partition, &leader))
        return GR_ADMIN_EXIT_FAILED;
    if (gr_admin_move_to(a, leader.addr))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_PRODUCERS, DESCRIBE_PRODUCERS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_producers_request_t req;
    gr_describe_producers_request_init(&req);
    gr_describe_producers_request_topic_request_t t;
    gr_describe_producers_request_topic_request_init(&t);
    t.name = gr_str(topic);
    t.partition_indexes = &partition;
    t.partition_indexes_count = 1;
    req.topics = &t;
    req.topics_count = 1;
    gr_describe_producers_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_PRODUCERS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.topics_count != 1 || resp.topics[0].partitions_count != 1) {
        fprintf(stderr, "error: DescribeProducers answered no single partition\n");
        return GR_ADMIN_EXIT_TRANSPORT;
    }
    gr_describe_producers_response_partition_response_t *p = &resp.topics[0].partitions[0];
    if (p->error_code) {
        char what[300];
        snprintf(what, sizeof what, "Failed to describe producers for partition %s-%d", topic,
                 partition);
        gr_admin_report(what, p->error_code, p->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    *out = p;
    return 0;
}

static int transactions_describe_producers(gr_admin_t *a)
{
    const char *topic;
    int32_t partition;
    if (partition_options(a, &topic, &partition))
        return GR_ADMIN_EXIT_USAGE;
    gr_describe_producers_response_partition_response_t *p = NULL;
    int rc = describe_producers(a, topic, partition, &p);
    if (rc)
        return rc;
    if (a->json)
        printf("[");
    const char *headers[] = {"ProducerId",   "ProducerEpoch", "LatestCoordinatorEpoch",
                             "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"};
    gr_table_t table;
    gr_table_init(&table, headers, 6);
    for (int32_t i = 0; i < p->active_producers_count; i++) {
        const gr_describe_producers_response_producer_state_t *s = &p->active_producers[i];
        if (a->json) {
            printf("%s{\"producer_id\":%lld,\"producer_epoch\":%d,\"coordinator_epoch\":%d,"
                   "\"last_sequence\":%d,\"last_timestamp\":%lld,"
                   "\"current_transaction_start_offset\":%lld}",
                   i ? "," : "", (long long)s->producer_id, s->producer_epoch, s->coordinator_epoch,
                   s->last_sequence, (long long)s->last_timestamp,
                   (long long)s->current_txn_start_offset);
            continue;
        }
        char start[GR_ADMIN_TXN_NUMBER_MAX];
        gr_admin_txn_offset_text(s->current_txn_start_offset, start);
        const char *row[] = {
            number_text(a, s->producer_id),       number_text(a, s->producer_epoch),
            number_text(a, s->coordinator_epoch), number_text(a, s->last_sequence),
            number_text(a, s->last_timestamp),    start};
        gr_table_row(&table, row);
    }
    if (a->json)
        printf("]\n");
    else
        gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

/* The abort target from --start-offset (DescribeProducers) or the three options. Exit code or 0. */
static int abort_spec(gr_admin_t *a, const char *topic, int32_t partition,
                      gr_admin_abort_spec_t *spec)
{
    const gr_admin_options_t *o = a->opts;
    int64_t start = -1, pid = -1, epoch = -1, coordinator_epoch = -1;
    int has_start = gr_admin_opt_long(o, "start-offset", &start);
    int has_pid = gr_admin_opt_long(o, "producer-id", &pid);
    if (has_start < 0 || has_pid < 0)
        return GR_ADMIN_EXIT_USAGE;
    if (has_start == 0) {
        gr_describe_producers_response_partition_response_t *p = NULL;
        int rc = describe_producers(a, topic, partition, &p);
        if (rc)
            return rc;
        if (gr_admin_abort_spec_find(p, start, spec)) {
            fprintf(stderr,
                    "error: Could not find any open transactions starting at offset %lld "
                    "on partition %s-%d\n",
                    (long long)start, topic, partition);
            return GR_ADMIN_EXIT_FAILED;
        }
        return 0;
    }
    if (has_pid != 0 || gr_admin_opt_long(o, "producer-epoch", &epoch) != 0 ||
        gr_admin_opt_long(o, "coordinator-epoch", &coordinator_epoch) != 0 ||
        gr_admin_abort_spec_given(pid, epoch, coordinator_epoch, spec) != 0) {
        fprintf(stderr, "error: The transaction to abort must be identified either with "
                        "--start-offset or with --producer-id, --producer-epoch and "
                        "--coordinator-epoch\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_admin_broker_t leader;
    if (gr_admin_partition_leader(a, topic, partition, &leader))
        return GR_ADMIN_EXIT_FAILED;
    return gr_admin_move_to(a, leader.addr) ? GR_ADMIN_EXIT_TRANSPORT : 0;
}

static int transactions_abort(gr_admin_t *a)
{
    const char *topic;
    int32_t partition;
    if (partition_options(a, &topic, &partition))
        return GR_ADMIN_EXIT_USAGE;
    gr_admin_abort_spec_t spec;
    int rc = abort_spec(a, topic, partition, &spec);
    if (rc)
        return rc;
    /* The connection is on the partition's leader now. */
    int16_t v = gr_admin_version(a, GR_API_WRITE_TXN_MARKERS, WRITE_TXN_MARKERS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_write_txn_markers_request_t req;
    gr_write_txn_markers_request_init(&req);
    gr_write_txn_markers_request_writable_txn_marker_t marker;
    gr_write_txn_markers_request_writable_txn_marker_init(&marker);
    gr_write_txn_markers_request_writable_txn_marker_topic_t t;
    gr_write_txn_markers_request_writable_txn_marker_topic_init(&t);
    t.name = gr_str(topic);
    t.partition_indexes = &partition;
    t.partition_indexes_count = 1;
    marker.producer_id = spec.producer_id;
    marker.producer_epoch = spec.producer_epoch;
    marker.transaction_result = false; /* ABORT */
    marker.topics = &t;
    marker.topics_count = 1;
    marker.coordinator_epoch = spec.coordinator_epoch;
    req.markers = &marker;
    req.markers_count = 1;
    gr_write_txn_markers_response_t resp;
    if (gr_admin_call(a, GR_API_WRITE_TXN_MARKERS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t code = GR_KERR_UNKNOWN_SERVER_ERROR;
    if (resp.markers_count == 1 && resp.markers[0].topics_count == 1 &&
        resp.markers[0].topics[0].partitions_count == 1)
        code = resp.markers[0].topics[0].partitions[0].error_code;
    if (a->json) {
        printf("{\"topic\":");
        gr_json_str(stdout, topic);
        printf(",\"partition\":%d,\"producer_id\":%lld,\"producer_epoch\":%d,"
               "\"coordinator_epoch\":%d,\"error\":",
               partition, (long long)spec.producer_id, spec.producer_epoch, spec.coordinator_epoch);
        gr_json_str(stdout, code ? gr_kerr_name(code) : NULL);
        printf("}\n");
    }
    if (code) {
        char what[400];
        snprintf(what, sizeof what,
                 "Failed to abort transaction of producer %lld (epoch %d, coordinator epoch %d) "
                 "on partition %s-%d",
                 (long long)spec.producer_id, spec.producer_epoch, spec.coordinator_epoch, topic,
                 partition);
        gr_admin_report(what, code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    if (!a->json)
        printf("Aborted the transaction of producer %lld (epoch %d, coordinator epoch %d) on "
               "partition %s-%d.\n",
               (long long)spec.producer_id, spec.producer_epoch, spec.coordinator_epoch, topic,
               partition);
    return GR_ADMIN_EXIT_OK;
}

int gr_admin_cmd_transactions(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    if (gr_admin_is(a, "list"))
        return transactions_list(a);
    if (gr_admin_is(a, "describe"))
        return transactions_describe(a);
    if (gr_admin_is(a, "describe-producers"))
        return transactions_describe_producers(a);
    return transactions_abort(a);
}
