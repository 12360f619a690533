# Client learns brokers, controller, topics and partition leaders.

api 3 Metadata
serve 0-13 gr_handle_metadata
request MetadataRequest versions 0-13 flexible 9+
  Topics []MetadataRequestTopic 0+ nullable=1+ -- topics wanted, null for all
    TopicId uuid 10+ ignorable -- topic UUID
    Name string 0+ nullable=10+ -- topic name, null when by id
  AllowAutoTopicCreation bool 4+ default=true -- create missing topics if allowed
  IncludeClusterAuthorizedOperations bool 8-10 -- also return cluster operations bitfield
  IncludeTopicAuthorizedOperations bool 8+ -- also return per-topic operations bitfield

response MetadataResponse versions 0-13 flexible 9+
  ThrottleTimeMs int32 3+ ignorable -- quota throttle delay in ms, 0 if none
  Brokers []MetadataResponseBroker 0+ -- live brokers
    NodeId int32 0+ -- broker id
    Host string 0+ -- host name or address
    Port int32 0+ -- TCP port
    Rack string 1+ nullable=1+ default=null ignorable -- broker rack, or null
  ClusterId string 2+ nullable=2+ default=null ignorable -- cluster id
  ControllerId int32 1+ default=-1 ignorable -- controller broker id, -1 if unknown
  Topics []MetadataResponseTopic 0+ -- per-topic metadata
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    Name string 0+ nullable=12+ -- topic name
    TopicId uuid 10+ ignorable -- topic UUID
    IsInternal bool 1+ default=false ignorable -- internal topic flag
    Partitions []MetadataResponsePartition 0+ -- per-partition metadata
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      PartitionIndex int32 0+ -- partition index
      LeaderId int32 0+ -- leader broker id, -1 if none
      LeaderEpoch int32 7+ default=-1 ignorable -- leader epoch
      ReplicaNodes []int32 0+ -- all replica broker ids
      IsrNodes []int32 0+ -- in-sync replica broker ids
      OfflineReplicas []int32 5+ ignorable -- replicas on offline brokers
    TopicAuthorizedOperations int32 8+ default=-2147483648 -- bitfield of allowed topic operations
  ClusterAuthorizedOperations int32 8-10 default=-2147483648 -- bitfield of allowed cluster operations
  ErrorCode int16 13+ default=0 ignorable -- top-level error (KIP-1102), 0 if none
