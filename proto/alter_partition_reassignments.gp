# Admin tool starts or cancels moving partition replicas between brokers.

api 45 AlterPartitionReassignments
serve 0 gr_handle_alter_partition_reassignments
request AlterPartitionReassignmentsRequest versions 0 flexible 0+
  TimeoutMs int32 0+ default=60000 -- time limit in ms
  Topics []ReassignableTopic 0+ -- reassignments grouped by topic
    Name string 0+ -- topic name
    Partitions []ReassignablePartition 0+ -- reassignment per partition
      PartitionIndex int32 0+ -- partition index
      Replicas []int32 0+ nullable=0+ default=null -- target replicas, null cancels

response AlterPartitionReassignmentsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Responses []ReassignableTopicResponse 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []ReassignablePartitionResponse 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
