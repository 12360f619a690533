# Admin tool lists producers with open state on partitions.

api 61 DescribeProducers
serve 0 gr_handle_describe_producers
request DescribeProducersRequest versions 0 flexible 0+
  Topics []TopicRequest 0+ -- partitions to inspect
    Name string 0+ -- topic name
    PartitionIndexes []int32 0+ -- partition indexes

response DescribeProducersResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Topics []TopicResponse 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []PartitionResponse 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
      ActiveProducers []ProducerState 0+ -- producers with open state
        ProducerId int64 0+ -- producer id
        ProducerEpoch int32 0+ -- producer epoch
        LastSequence int32 0+ default=-1 -- last sequence written, -1 none
        LastTimestamp int64 0+ default=-1 -- last write time in ms, -1 none
        CoordinatorEpoch int32 0+ -- coordinator epoch
        CurrentTxnStartOffset int64 0+ default=-1 -- open transaction start, -1 none
