# Admin tool triggers preferred or unclean leader election for partitions.

api 43 ElectLeaders
serve 0-2 gr_handle_elect_leaders
request ElectLeadersRequest versions 0-2 flexible 2+
  ElectionType int8 1+ -- 0 preferred, 1 unclean
  TopicPartitions []TopicPartitions 0+ nullable=0+ -- partitions to elect, null for all
    Topic string 0+ -- topic name
    Partitions []int32 0+ -- partition indexes
  TimeoutMs int32 0+ default=60000 -- time limit in ms

response ElectLeadersResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 1+ -- error for the whole request
  ReplicaElectionResults []ReplicaElectionResult 0+ -- per-topic results
    Topic string 0+ -- topic name
    PartitionResult []PartitionResult 0+ -- per-partition results
      PartitionId int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ -- readable error detail, or null

# ElectionType (v1+; v0 always elects the preferred replica).
enum ElectionType PREFERRED=0 UNCLEAN=1
