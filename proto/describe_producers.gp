api 61 DescribeProducers
request DescribeProducersRequest versions 0 flexible 0+
  Topics []TopicRequest 0+
    Name string 0+
    PartitionIndexes []int32 0+

response DescribeProducersResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  Topics []TopicResponse 0+
    Name string 0+
    Partitions []PartitionResponse 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
      ErrorMessage string 0+ nullable=0+ default=null
      ActiveProducers []ProducerState 0+
        ProducerId int64 0+
        ProducerEpoch int32 0+
        LastSequence int32 0+ default=-1
        LastTimestamp int64 0+ default=-1
        CoordinatorEpoch int32 0+
        CurrentTxnStartOffset int64 0+ default=-1
