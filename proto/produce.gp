api 0 Produce
request ProduceRequest versions 0-11 flexible 9+
  TransactionalId string 3+ nullable=3+ default=null
  Acks int16 0+
  TimeoutMs int32 0+
  TopicData []TopicProduceData 0+
    Name string 0+
    PartitionData []PartitionProduceData 0+
      Index int32 0+
      Records records 0+ nullable=0+

response ProduceResponse versions 0-11 flexible 9+
  Responses []TopicProduceResponse 0+
    Name string 0+
    PartitionResponses []PartitionProduceResponse 0+
      Index int32 0+
      ErrorCode int16 0+
      BaseOffset int64 0+
      LogAppendTimeMs int64 2+ default=-1 ignorable
      LogStartOffset int64 5+ default=-1 ignorable
      RecordErrors []BatchIndexAndErrorMessage 8+ ignorable
        BatchIndex int32 8+
        BatchIndexErrorMessage string 8+ nullable=8+ default=null
      ErrorMessage string 8+ nullable=8+ default=null ignorable
      CurrentLeader LeaderIdAndEpoch 10+ tag=0 tagged=10+
        LeaderId int32 10+ default=-1
        LeaderEpoch int32 10+ default=-1
  ThrottleTimeMs int32 1+ default=0 ignorable
  NodeEndpoints []NodeEndpoint 10+ tag=0 tagged=10+
    NodeId int32 10+
    Host string 10+
    Port int32 10+
    Rack string 10+ nullable=10+ default=null
