# Admin tool creates topics with their partitions, replicas and configs.

api 19 CreateTopics
serve 0-7 gr_handle_create_topics
request CreateTopicsRequest versions 0-7 flexible 5+
  Topics []CreatableTopic 0+ -- new topics
    Name string 0+ -- topic name
    NumPartitions int32 0+ -- partition count, -1 for broker default
    ReplicationFactor int16 0+ -- replica count, -1 for broker default
    Assignments []CreatableReplicaAssignment 0+ -- explicit replica placement, or empty
      PartitionIndex int32 0+ -- partition index
      BrokerIds []int32 0+ -- replica broker ids
    Configs []CreateableTopicConfig 0+ -- topic config overrides
      Name string 0+ -- config key
      Value string 0+ nullable=0+ -- config value, or null
  timeoutMs int32 0+ default=60000 -- time limit for creation in ms
  validateOnly bool 1+ default=false -- only check, create nothing

response CreateTopicsResponse versions 0-7 flexible 5+
  ThrottleTimeMs int32 2+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []CreatableTopicResult 0+ -- per-topic results
    Name string 0+ -- topic name
    TopicId uuid 7+ ignorable -- topic UUID
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 1+ nullable=0+ ignorable -- readable error detail, or null
    TopicConfigErrorCode int16 5+ tag=0 tagged=5+ ignorable -- error reading back the configs
    NumPartitions int32 5+ default=-1 ignorable -- partition count created, -1 on error
    ReplicationFactor int16 5+ default=-1 ignorable -- replica count created, -1 on error
    Configs []CreatableTopicConfigs 5+ nullable=5+ ignorable -- effective topic configs, or null
      Name string 5+ -- config key
      Value string 5+ nullable=5+ -- config value, or null
      ReadOnly bool 5+ -- entry cannot be changed
      ConfigSource int8 5+ default=-1 ignorable -- origin of the value (source code)
      IsSensitive bool 5+ -- value is secret and hidden
