api 3 Metadata
request MetadataRequest versions 0-12 flexible 9+
  Topics []MetadataRequestTopic 0+ nullable=1+
    TopicId uuid 10+ ignorable
    Name string 0+ nullable=10+
  AllowAutoTopicCreation bool 4+ default=true
  IncludeClusterAuthorizedOperations bool 8-10
  IncludeTopicAuthorizedOperations bool 8+

response MetadataResponse versions 0-12 flexible 9+
  ThrottleTimeMs int32 3+ ignorable
  Brokers []MetadataResponseBroker 0+
    NodeId int32 0+
    Host string 0+
    Port int32 0+
    Rack string 1+ nullable=1+ default=null ignorable
  ClusterId string 2+ nullable=2+ default=null ignorable
  ControllerId int32 1+ default=-1 ignorable
  Topics []MetadataResponseTopic 0+
    ErrorCode int16 0+
    Name string 0+ nullable=12+
    TopicId uuid 10+ ignorable
    IsInternal bool 1+ default=false ignorable
    Partitions []MetadataResponsePartition 0+
      ErrorCode int16 0+
      PartitionIndex int32 0+
      LeaderId int32 0+
      LeaderEpoch int32 7+ default=-1 ignorable
      ReplicaNodes []int32 0+
      IsrNodes []int32 0+
      OfflineReplicas []int32 5+ ignorable
    TopicAuthorizedOperations int32 8+ default=-2147483648
  ClusterAuthorizedOperations int32 8-10 default=-2147483648
