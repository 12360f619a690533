# A transactional producer commits group offsets inside its transaction.

api 28 TxnOffsetCommit
serve 0-4 gr_handle_txn_offset_commit
request TxnOffsetCommitRequest versions 0-4 flexible 3+
  TransactionalId string 0+ -- transactional id
  GroupId string 0+ -- group id
  ProducerId int64 0+ -- producer id
  ProducerEpoch int16 0+ -- producer epoch
  GenerationId int32 3+ default=-1 -- group generation, -1 if unknown
  MemberId string 3+ default="" -- member id, empty if unknown
  GroupInstanceId string 3+ nullable=3+ default=null -- static member instance id, or null
  Topics []TxnOffsetCommitRequestTopic 0+ -- offsets to commit, by topic
    Name string 0+ -- topic name
    Partitions []TxnOffsetCommitRequestPartition 0+ -- per-partition entries
      PartitionIndex int32 0+ -- partition index
      CommittedOffset int64 0+ -- committed offset
      CommittedLeaderEpoch int32 2+ default=-1 ignorable -- epoch matching the offset, -1 unknown
      CommittedMetadata string 0+ nullable=0+ -- client metadata stored with the offset

response TxnOffsetCommitResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Topics []TxnOffsetCommitResponseTopic 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []TxnOffsetCommitResponsePartition 0+ -- per-partition entries
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
