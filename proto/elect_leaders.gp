api 43 ElectLeaders
request ElectLeadersRequest versions 0-2 flexible 2+
  ElectionType int8 1+
  TopicPartitions []TopicPartitions 0+ nullable=0+
    Topic string 0+
    Partitions []int32 0+
  TimeoutMs int32 0+ default=60000

response ElectLeadersResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+
  ErrorCode int16 1+
  ReplicaElectionResults []ReplicaElectionResult 0+
    Topic string 0+
    PartitionResult []PartitionResult 0+
      PartitionId int32 0+
      ErrorCode int16 0+
      ErrorMessage string 0+ nullable=0+
