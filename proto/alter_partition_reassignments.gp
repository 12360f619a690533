api 45 AlterPartitionReassignments
request AlterPartitionReassignmentsRequest versions 0 flexible 0+
  TimeoutMs int32 0+ default=60000
  Topics []ReassignableTopic 0+
    Name string 0+
    Partitions []ReassignablePartition 0+
      PartitionIndex int32 0+
      Replicas []int32 0+ nullable=0+ default=null

response AlterPartitionReassignmentsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Responses []ReassignableTopicResponse 0+
    Name string 0+
    Partitions []ReassignablePartitionResponse 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
      ErrorMessage string 0+ nullable=0+
