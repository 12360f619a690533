# Admin tool lists replica reassignments still in progress.

api 46 ListPartitionReassignments
serve 0 gr_handle_list_partition_reassignments
request ListPartitionReassignmentsRequest versions 0 flexible 0+
  TimeoutMs int32 0+ default=60000 -- time limit in ms
  Topics []ListPartitionReassignmentsTopics 0+ nullable=0+ default=null -- topics to list, null for all
    Name string 0+ -- topic name
    PartitionIndexes []int32 0+ -- partition indexes

response ListPartitionReassignmentsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Topics []OngoingTopicReassignment 0+ -- topics being reassigned
    Name string 0+ -- topic name
    Partitions []OngoingPartitionReassignment 0+ -- partitions being reassigned
      PartitionIndex int32 0+ -- partition index
      Replicas []int32 0+ -- replicas assigned now
      AddingReplicas []int32 0+ -- replicas being added
      RemovingReplicas []int32 0+ -- replicas being removed
