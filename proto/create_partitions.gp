api 37 CreatePartitions
request CreatePartitionsRequest versions 0-3 flexible 2+
  Topics []CreatePartitionsTopic 0+
    Name string 0+
    Count int32 0+
    Assignments []CreatePartitionsAssignment 0+ nullable=0+
      BrokerIds []int32 0+
  TimeoutMs int32 0+
  ValidateOnly bool 0+

response CreatePartitionsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+
  Results []CreatePartitionsTopicResult 0+
    Name string 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+ default=null
