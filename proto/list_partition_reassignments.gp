api 46 ListPartitionReassignments
request ListPartitionReassignmentsRequest versions 0 flexible 0+
  TimeoutMs int32 0+ default=60000
  Topics []ListPartitionReassignmentsTopics 0+ nullable=0+ default=null
    Name string 0+
    PartitionIndexes []int32 0+

response ListPartitionReassignmentsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Topics []OngoingTopicReassignment 0+
    Name string 0+
    Partitions []OngoingPartitionReassignment 0+
      PartitionIndex int32 0+
      Replicas []int32 0+
      AddingReplicas []int32 0+
      RemovingReplicas []int32 0+
