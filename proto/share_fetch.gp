# Share consumers fetch records and acknowledge earlier deliveries in one
# request; the records come back acquired (locked) for the member.
# Version 0 was Kafka 4.0's early access (Kafka 4.1 removed it); Kafka 4.2
# serves 1-2: v1 adds MaxRecords, BatchSize and the lock timeout, v2 the
# acquire mode (KIP-1206) and renew acknowledgements (KIP-1222).

api 78 ShareFetch
serve 1-2 gr_handle_share_fetch
request ShareFetchRequest versions 0-2 flexible 0+
  GroupId string 0+ nullable=0+ default=null -- group id
  MemberId string 0+ nullable=0+ -- member id
  ShareSessionEpoch int32 0+ -- 0 opens a share session, -1 closes it, else the next epoch
  MaxWaitMs int32 0+ -- longest wait for MinBytes in ms
  MinBytes int32 0+ -- bytes to accumulate before answering
  MaxBytes int32 0+ default=0x7fffffff -- response size limit (KIP-74 may exceed it)
  MaxRecords int32 1+ -- records to acquire at most, batch alignment may exceed it
  BatchSize int32 1+ -- preferred records per acquired batch
  ShareAcquireMode int8 2+ default=0 -- 0 batch-optimized, 1 record-limit
  IsRenewAck bool 2+ default=false -- the batches carry renew acknowledgements
  Topics []FetchTopic 0+ -- topics to fetch
    TopicId uuid 0+ -- topic UUID
    Partitions []FetchPartition 0+ -- partitions to fetch
      PartitionIndex int32 0+ -- partition index
      PartitionMaxBytes int32 0 -- per-partition byte limit (v0 only)
      AcknowledgementBatches []AcknowledgementBatch 0+ -- deliveries being acknowledged
        FirstOffset int64 0+ -- first offset of the batch
        LastOffset int64 0+ -- last offset of the batch, inclusive
        AcknowledgeTypes []int8 0+ -- one type for the batch or one per offset
  ForgottenTopicsData []ForgottenTopic 0+ -- partitions to drop from the session
    TopicId uuid 0+ -- topic UUID
    Partitions []int32 0+ -- partition indexes

response ShareFetchResponse versions 0-2 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- top-level Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
  AcquisitionLockTimeoutMs int32 1+ ignorable -- how long acquired records stay locked, ms
  Responses []ShareFetchableTopicResponse 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- fetch error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- fetch error detail, or null
      AcknowledgeErrorCode int16 0+ -- acknowledgement error code, 0 on success
      AcknowledgeErrorMessage string 0+ nullable=0+ default=null -- acknowledgement error detail, or null
      CurrentLeader LeaderIdAndEpoch 0+ -- leader as this broker knows it
        LeaderId int32 0+ -- leader broker id, -1 unknown
        LeaderEpoch int32 0+ -- leader epoch
      Records records 0+ nullable=0+ -- record batches holding the acquired records
      AcquiredRecords []AcquiredRecords 0+ -- offset ranges acquired by this member
        FirstOffset int64 0+ -- first acquired offset
        LastOffset int64 0+ -- last acquired offset, inclusive
        DeliveryCount int16 0+ -- delivery attempt of these records
  NodeEndpoints []NodeEndpoint 0+ -- leaders named by NOT_LEADER_OR_FOLLOWER answers
    NodeId int32 0+ -- broker id
    Host string 0+ -- broker host
    Port int32 0+ -- broker port
    Rack string 0+ nullable=0+ default=null -- broker rack, or null
