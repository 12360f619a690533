# Share consumers acknowledge delivered records without fetching more.
# Version 0 was Kafka 4.0's early access (Kafka 4.1 removed it); Kafka 4.2
# serves 1-2: v2 adds renew acknowledgements (KIP-1222) and the lock
# timeout in the response.

api 79 ShareAcknowledge
serve 1-2 gr_handle_share_acknowledge
request ShareAcknowledgeRequest versions 0-2 flexible 0+
  GroupId string 0+ nullable=0+ default=null -- group id
  MemberId string 0+ nullable=0+ -- member id
  ShareSessionEpoch int32 0+ -- current share session epoch; -1 closes the session
  IsRenewAck bool 2+ default=false -- the batches carry renew acknowledgements
  Topics []AcknowledgeTopic 0+ -- topics with records to acknowledge
    TopicId uuid 0+ -- topic UUID
    Partitions []AcknowledgePartition 0+ -- partitions with records to acknowledge
      PartitionIndex int32 0+ -- partition index
      AcknowledgementBatches []AcknowledgementBatch 0+ -- deliveries being acknowledged
        FirstOffset int64 0+ -- first offset of the batch
        LastOffset int64 0+ -- last offset of the batch, inclusive
        AcknowledgeTypes []int8 0+ -- one type for the batch or one per offset

response ShareAcknowledgeResponse versions 0-2 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- top-level Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
  AcquisitionLockTimeoutMs int32 2+ ignorable -- how long acquired records stay locked, ms
  Responses []ShareAcknowledgeTopicResponse 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
      CurrentLeader LeaderIdAndEpoch 0+ -- leader as this broker knows it
        LeaderId int32 0+ -- leader broker id, -1 unknown
        LeaderEpoch int32 0+ -- leader epoch
  NodeEndpoints []NodeEndpoint 0+ -- leaders named by NOT_LEADER_OR_FOLLOWER answers
    NodeId int32 0+ -- broker id
    Host string 0+ -- broker host
    Port int32 0+ -- broker port
    Rack string 0+ nullable=0+ default=null -- broker rack, or null
