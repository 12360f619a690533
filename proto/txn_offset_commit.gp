api 28 TxnOffsetCommit
request TxnOffsetCommitRequest versions 0-4 flexible 3+
  TransactionalId string 0+
  GroupId string 0+
  ProducerId int64 0+
  ProducerEpoch int16 0+
  GenerationId int32 3+ default=-1
  MemberId string 3+ default=""
  GroupInstanceId string 3+ nullable=3+ default=null
  Topics []TxnOffsetCommitRequestTopic 0+
    Name string 0+
    Partitions []TxnOffsetCommitRequestPartition 0+
      PartitionIndex int32 0+
      CommittedOffset int64 0+
      CommittedLeaderEpoch int32 2+ default=-1 ignorable
      CommittedMetadata string 0+ nullable=0+

response TxnOffsetCommitResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+
  Topics []TxnOffsetCommitResponseTopic 0+
    Name string 0+
    Partitions []TxnOffsetCommitResponsePartition 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
