/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Error code names, retriable flags and the errno mapping: see kerr.h.
 * Holds only constant tables.
 */
#include "kerr.h"

#include <errno.h>
#include <stddef.h>

typedef struct kerr_info {
    const char *name;
    bool retriable;
} kerr_info_t;

/* Indexed by code + 1, so UNKNOWN_SERVER_ERROR (-1) is entry 0. */
#define KERR(name, retriable) [GR_KERR_##name + 1] = {#name, retriable}

static const kerr_info_t kerr_table[] = {
    KERR(UNKNOWN_SERVER_ERROR, false),
    KERR(NONE, false),
    KERR(OFFSET_OUT_OF_RANGE, false),
    KERR(CORRUPT_MESSAGE, true),
    KERR(UNKNOWN_TOPIC_OR_PARTITION, true),
    KERR(INVALID_FETCH_SIZE, false),
    KERR(LEADER_NOT_AVAILABLE, true),
    KERR(NOT_LEADER_OR_FOLLOWER, true),
    KERR(REQUEST_TIMED_OUT, true),
    KERR(BROKER_NOT_AVAILABLE, false),
    KERR(REPLICA_NOT_AVAILABLE, true),
    KERR(MESSAGE_TOO_LARGE, false),
    KERR(STALE_CONTROLLER_EPOCH, false),
    KERR(OFFSET_METADATA_TOO_LARGE, false),
    KERR(NETWORK_EXCEPTION, true),
    KERR(COORDINATOR_LOAD_IN_PROGRESS, true),
    KERR(COORDINATOR_NOT_AVAILABLE, true),
    KERR(NOT_COORDINATOR, true),
    KERR(INVALID_TOPIC_EXCEPTION, false),
    KERR(RECORD_LIST_TOO_LARGE, false),
    KERR(NOT_ENOUGH_REPLICAS, true),
    KERR(NOT_ENOUGH_REPLICAS_AFTER_APPEND, true),
    KERR(INVALID_REQUIRED_ACKS, false),
    KERR(ILLEGAL_GENERATION, false),
    KERR(INCONSISTENT_GROUP_PROTOCOL, false),
    KERR(INVALID_GROUP_ID, false),
    KERR(UNKNOWN_MEMBER_ID, false),
    KERR(INVALID_SESSION_TIMEOUT, false),
    KERR(REBALANCE_IN_PROGRESS, false),
    KERR(INVALID_COMMIT_OFFSET_SIZE, false),
    KERR(TOPIC_AUTHORIZATION_FAILED, false),
    KERR(GROUP_AUTHORIZATION_FAILED, false),
    KERR(CLUSTER_AUTHORIZATION_FAILED, false),
    KERR(INVALID_TIMESTAMP, false),
    KERR(UNSUPPORTED_SASL_MECHANISM, false),
    KERR(ILLEGAL_SASL_STATE, false),
    KERR(UNSUPPORTED_VERSION, false),
    KERR(TOPIC_ALREADY_EXISTS, false),
    KERR(INVALID_PARTITIONS, false),
    KERR(INVALID_REPLICATION_FACTOR, false),
    KERR(INVALID_REPLICA_ASSIGNMENT, false),
    KERR(INVALID_CONFIG, false),
    KERR(NOT_CONTROLLER, true),
    KERR(INVALID_REQUEST, false),
    KERR(UNSUPPORTED_FOR_MESSAGE_FORMAT, false),
    KERR(POLICY_VIOLATION, false),
    KERR(OUT_OF_ORDER_SEQUENCE_NUMBER, false),
    KERR(DUPLICATE_SEQUENCE_NUMBER, false),
    KERR(INVALID_PRODUCER_EPOCH, false),
    KERR(INVALID_TXN_STATE, false),
    KERR(INVALID_PRODUCER_ID_MAPPING, false),
    KERR(INVALID_TRANSACTION_TIMEOUT, false),
    KERR(CONCURRENT_TRANSACTIONS, true),
    KERR(TRANSACTION_COORDINATOR_FENCED, false),
    KERR(TRANSACTIONAL_ID_AUTHORIZATION_FAILED, false),
    KERR(SECURITY_DISABLED, false),
    KERR(OPERATION_NOT_ATTEMPTED, false),
    KERR(KAFKA_STORAGE_ERROR, true),
    KERR(LOG_DIR_NOT_FOUND, false),
    KERR(SASL_AUTHENTICATION_FAILED, false),
    KERR(UNKNOWN_PRODUCER_ID, false),
    KERR(REASSIGNMENT_IN_PROGRESS, false),
    KERR(DELEGATION_TOKEN_AUTH_DISABLED, false),
    KERR(DELEGATION_TOKEN_NOT_FOUND, false),
    KERR(DELEGATION_TOKEN_OWNER_MISMATCH, false),
    KERR(DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, false),
    KERR(DELEGATION_TOKEN_AUTHORIZATION_FAILED, false),
    KERR(DELEGATION_TOKEN_EXPIRED, false),
    KERR(INVALID_PRINCIPAL_TYPE, false),
    KERR(NON_EMPTY_GROUP, false),
    KERR(GROUP_ID_NOT_FOUND, false),
    KERR(FETCH_SESSION_ID_NOT_FOUND, true),
    KERR(INVALID_FETCH_SESSION_EPOCH, true),
    KERR(LISTENER_NOT_FOUND, true),
    KERR(TOPIC_DELETION_DISABLED, false),
    KERR(FENCED_LEADER_EPOCH, true),
    KERR(UNKNOWN_LEADER_EPOCH, true),
    KERR(UNSUPPORTED_COMPRESSION_TYPE, false),
    KERR(STALE_BROKER_EPOCH, false),
    KERR(OFFSET_NOT_AVAILABLE, true),
    KERR(MEMBER_ID_REQUIRED, false),
    KERR(PREFERRED_LEADER_NOT_AVAILABLE, true),
    KERR(GROUP_MAX_SIZE_REACHED, false),
    KERR(FENCED_INSTANCE_ID, false),
    KERR(ELIGIBLE_LEADERS_NOT_AVAILABLE, true),
    KERR(ELECTION_NOT_NEEDED, true),
    KERR(NO_REASSIGNMENT_IN_PROGRESS, false),
    KERR(GROUP_SUBSCRIBED_TO_TOPIC, false),
    KERR(INVALID_RECORD, false),
    KERR(UNSTABLE_OFFSET_COMMIT, true),
    KERR(THROTTLING_QUOTA_EXCEEDED, true),
    KERR(PRODUCER_FENCED, false),
    KERR(RESOURCE_NOT_FOUND, false),
    KERR(DUPLICATE_RESOURCE, false),
    KERR(UNACCEPTABLE_CREDENTIAL, false),
    KERR(INCONSISTENT_VOTER_SET, false),
    KERR(INVALID_UPDATE_VERSION, false),
    KERR(FEATURE_UPDATE_FAILED, false),
    KERR(PRINCIPAL_DESERIALIZATION_FAILURE, false),
    KERR(SNAPSHOT_NOT_FOUND, false),
    KERR(POSITION_OUT_OF_RANGE, false),
    KERR(UNKNOWN_TOPIC_ID, true),
    KERR(DUPLICATE_BROKER_REGISTRATION, false),
    KERR(BROKER_ID_NOT_REGISTERED, false),
    KERR(INCONSISTENT_TOPIC_ID, true),
    KERR(INCONSISTENT_CLUSTER_ID, false),
    KERR(TRANSACTIONAL_ID_NOT_FOUND, false),
    KERR(FETCH_SESSION_TOPIC_ID_ERROR, true),
    KERR(INELIGIBLE_REPLICA, false),
    KERR(NEW_LEADER_ELECTED, false),
    KERR(OFFSET_MOVED_TO_TIERED_STORAGE, false),
    KERR(FENCED_MEMBER_EPOCH, false),
    KERR(UNRELEASED_INSTANCE_ID, false),
    KERR(UNSUPPORTED_ASSIGNOR, false),
    KERR(STALE_MEMBER_EPOCH, false),
    KERR(MISMATCHED_ENDPOINT_TYPE, false),
    KERR(UNSUPPORTED_ENDPOINT_TYPE, false),
    KERR(UNKNOWN_CONTROLLER_ID, false),
    KERR(UNKNOWN_SUBSCRIPTION_ID, false),
    KERR(TELEMETRY_TOO_LARGE, false),
    KERR(INVALID_REGISTRATION, false),
    KERR(TRANSACTION_ABORTABLE, false),
    KERR(INVALID_RECORD_STATE, false),
    KERR(SHARE_SESSION_NOT_FOUND, true),
    KERR(INVALID_SHARE_SESSION_EPOCH, true),
    KERR(FENCED_STATE_EPOCH, false),
    KERR(INVALID_VOTER_KEY, false),
    KERR(DUPLICATE_VOTER, false),
    KERR(VOTER_NOT_FOUND, false),
    KERR(INVALID_REGULAR_EXPRESSION, false),
    KERR(REBOOTSTRAP_REQUIRED, false),
    KERR(STREAMS_INVALID_TOPOLOGY, false),
    KERR(STREAMS_INVALID_TOPOLOGY_EPOCH, false),
    KERR(STREAMS_TOPOLOGY_FENCED, false),
    KERR(SHARE_SESSION_LIMIT_REACHED, true),
};

#undef KERR

static const kerr_info_t *kerr_find(gr_kerr_t err)
{
    int i = (int)err + 1;
    if (i < 0 || (size_t)i >= sizeof kerr_table / sizeof kerr_table[0])
        return NULL;
    return kerr_table[i].name ? &kerr_table[i] : NULL;
}

const char *gr_kerr_name(gr_kerr_t err)
{
    const kerr_info_t *k = kerr_find(err);
    return k ? k->name : "UNKNOWN";
}

bool gr_kerr_retriable(gr_kerr_t err)
{
    const kerr_info_t *k = kerr_find(err);
    return k && k->retriable;
}

gr_kerr_t gr_kerr_from_errno(int neg_errno)
{
    switch (neg_errno) {
    case 0:
        return GR_KERR_NONE;
    case -EIO:
    case -ENOSPC:
    case -EROFS:
    case -EDQUOT:
    case -EFBIG:
    case -ENOTDIR:
    case -EISDIR:
    case -ESTALE:
    case -EUCLEAN:
    case -EACCES:
        /* The log directory failed or refuses writes: Kafka's answer. */
        return GR_KERR_KAFKA_STORAGE_ERROR;
    case -EBADMSG:
    case -ENODATA:
        return GR_KERR_CORRUPT_MESSAGE;
    case -EMSGSIZE:
        return GR_KERR_MESSAGE_TOO_LARGE;
    case -ETIMEDOUT:
        return GR_KERR_REQUEST_TIMED_OUT;
    case -EINVAL:
        return GR_KERR_INVALID_REQUEST;
    case -ERANGE:
        return GR_KERR_OFFSET_OUT_OF_RANGE;
    case -ENOTSUP:
        return GR_KERR_UNSUPPORTED_COMPRESSION_TYPE;
    default:
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
}
