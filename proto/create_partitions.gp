# Admin tool raises the partition count of existing topics.

api 37 CreatePartitions
serve 0-3 gr_handle_create_partitions
request CreatePartitionsRequest versions 0-3 flexible 2+
  Topics []CreatePartitionsTopic 0+ -- topics to grow
    Name string 0+ -- topic name
    Count int32 0+ -- partition total after growth
    Assignments []CreatePartitionsAssignment 0+ nullable=0+ -- placement of new partitions, or null
      BrokerIds []int32 0+ -- replica broker ids
  TimeoutMs int32 0+ -- time limit in ms
  ValidateOnly bool 0+ -- only check, apply nothing

response CreatePartitionsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []CreatePartitionsTopicResult 0+ -- per-topic results
    Name string 0+ -- topic name
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
