/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's errors as its Java tools print them. A tool that reports a failed
 * partition (kafka-delete-records.sh, kafka-get-offsets.sh,
 * kafka-consumer-groups.sh --delete-offsets) prints the failed future's message, which is the
 * exception's class and text: "org.apache.kafka.common.errors.OffsetOutOfRangeException: The
 * requested offset is not within the range of offsets maintained by the server." The table holds
 * the errors those tools can meet; any other prints its Kafka error name.
 */
#include <stdio.h>

#include "admin/admin.h"

#define JAVA_ERRORS_PACKAGE "org.apache.kafka.common.errors."

typedef struct java_error {
    int16_t code;
    const char *exception;
    const char *message; /* Kafka's default text for the code */
} java_error_t;

static const java_error_t java_errors[] = {
    {GR_KERR_UNKNOWN_SERVER_ERROR, "UnknownServerException",
     "The server experienced an unexpected error when processing the request."},
    {GR_KERR_OFFSET_OUT_OF_RANGE, "OffsetOutOfRangeException",
     "The requested offset is not within the range of offsets maintained by the server."},
    {GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, "UnknownTopicOrPartitionException",
     "This server does not host this topic-partition."},
    {GR_KERR_LEADER_NOT_AVAILABLE, "LeaderNotAvailableException",
     "There is no leader for this topic-partition as we are in the middle of a leadership "
     "election."},
    {GR_KERR_NOT_LEADER_OR_FOLLOWER, "NotLeaderOrFollowerException",
     "For requests intended only for the leader, this error indicates that the broker is not "
     "the current leader. For requests intended for any replica, this error indicates that the "
     "broker is not a replica of the topic partition."},
    {GR_KERR_REQUEST_TIMED_OUT, "TimeoutException", "The request timed out."},
    {GR_KERR_INVALID_TOPIC_EXCEPTION, "InvalidTopicException",
     "The request attempted to perform an operation on an invalid topic."},
    {GR_KERR_TOPIC_AUTHORIZATION_FAILED, "TopicAuthorizationException",
     "Topic authorization failed."},
    {GR_KERR_POLICY_VIOLATION, "PolicyViolationException",
     "Request parameters do not satisfy the configured policy."},
    {GR_KERR_KAFKA_STORAGE_ERROR, "KafkaStorageException",
     "Disk error when trying to access log file on the disk."},
    {GR_KERR_COORDINATOR_NOT_AVAILABLE, "CoordinatorNotAvailableException",
     "The coordinator is not available."},
    {GR_KERR_INVALID_GROUP_ID, "InvalidGroupIdException", "The configured groupId is invalid."},
    {GR_KERR_GROUP_AUTHORIZATION_FAILED, "GroupAuthorizationException",
     "Group authorization failed."},
    {GR_KERR_NON_EMPTY_GROUP, "GroupNotEmptyException", "The group is not empty."},
    {GR_KERR_GROUP_ID_NOT_FOUND, "GroupIdNotFoundException", "The group id does not exist."},
    {GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC, "GroupSubscribedToTopicException",
     "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed "
     "to it."},
};

void gr_admin_java_error(int16_t code, const char *message, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof java_errors / sizeof java_errors[0]; i++)
        if (java_errors[i].code == code) {
            snprintf(buf, size, JAVA_ERRORS_PACKAGE "%s: %s", java_errors[i].exception,
                     message ? message : java_errors[i].message);
            return;
        }
    snprintf(buf, size, "%s", gr_kerr_name(code));
}
