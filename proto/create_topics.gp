api 19 CreateTopics
request CreateTopicsRequest versions 0-7 flexible 5+
  Topics []CreatableTopic 0+
    Name string 0+
    NumPartitions int32 0+
    ReplicationFactor int16 0+
    Assignments []CreatableReplicaAssignment 0+
      PartitionIndex int32 0+
      BrokerIds []int32 0+
    Configs []CreateableTopicConfig 0+
      Name string 0+
      Value string 0+ nullable=0+
  timeoutMs int32 0+ default=60000
  validateOnly bool 1+ default=false

response CreateTopicsResponse versions 0-7 flexible 5+
  ThrottleTimeMs int32 2+ ignorable
  Topics []CreatableTopicResult 0+
    Name string 0+
    TopicId uuid 7+ ignorable
    ErrorCode int16 0+
    ErrorMessage string 1+ nullable=0+ ignorable
    TopicConfigErrorCode int16 5+ tag=0 tagged=5+ ignorable
    NumPartitions int32 5+ default=-1 ignorable
    ReplicationFactor int16 5+ default=-1 ignorable
    Configs []CreatableTopicConfigs 5+ nullable=5+ ignorable
      Name string 5+
      Value string 5+ nullable=5+
      ReadOnly bool 5+
      ConfigSource int8 5+ default=-1 ignorable
      IsSensitive bool 5+
