# Producers append record batches to partition leaders.

api 0 Produce
# Not below v3: message formats before v2 are not supported (as in Kafka 4.0).
serve 3-13 gr_handle_produce
request ProduceRequest versions 0-13 flexible 9+
  TransactionalId string 3+ nullable=3+ default=null -- set by transactional producers, else null
  Acks int16 0+ -- acks wanted: 0, 1 or -1 (all ISR)
  TimeoutMs int32 0+ -- max wait for acks in ms
  TopicData []TopicProduceData 0+ -- per-topic data to write
    Name string 0-12 ignorable -- topic name (v0-12)
    TopicId uuid 13+ ignorable -- topic UUID (v13+)
    PartitionData []PartitionProduceData 0+ -- per-partition data
      Index int32 0+ -- partition index
      Records records 0+ nullable=0+ -- record batches to append

response ProduceResponse versions 0-13 flexible 9+
  Responses []TopicProduceResponse 0+ -- per-topic results
    Name string 0-12 ignorable -- topic name (v0-12)
    TopicId uuid 13+ ignorable -- topic UUID (v13+)
    PartitionResponses []PartitionProduceResponse 0+ -- per-partition results
      Index int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      BaseOffset int64 0+ -- offset given to the first record
      LogAppendTimeMs int64 2+ default=-1 ignorable -- broker append time, -1 if CreateTime
      LogStartOffset int64 5+ default=-1 ignorable -- first offset still in the log
      RecordErrors []BatchIndexAndErrorMessage 8+ ignorable -- per-record reasons the batch failed
        BatchIndex int32 8+ -- index of the bad record
        BatchIndexErrorMessage string 8+ nullable=8+ default=null -- why that record failed, or null
      ErrorMessage string 8+ nullable=8+ default=null ignorable -- readable error detail, or null
      CurrentLeader LeaderIdAndEpoch 10+ tag=0 tagged=10+ -- new leader, when the leader moved
        LeaderId int32 10+ default=-1 -- new leader id, -1 if unknown
        LeaderEpoch int32 10+ default=-1 -- new leader epoch, -1 if unknown
  ThrottleTimeMs int32 1+ default=0 ignorable -- quota throttle delay in ms, 0 if none
  NodeEndpoints []NodeEndpoint 10+ tag=0 tagged=10+ -- endpoints of brokers named in the response
    NodeId int32 10+ -- broker id
    Host string 10+ -- host name or address
    Port int32 10+ -- TCP port
    Rack string 10+ nullable=10+ default=null -- rack id, or null

# Acks: how many replicas must have a batch before the answer.
enum Acks NONE=0 LEADER=1 ALL=-1
