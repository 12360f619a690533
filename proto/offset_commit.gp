api 8 OffsetCommit
request OffsetCommitRequest versions 0-9 flexible 8+
  GroupId string 0+
  GenerationIdOrMemberEpoch int32 1+ default=-1 ignorable
  MemberId string 1+ ignorable
  GroupInstanceId string 7+ nullable=7+ default=null
  RetentionTimeMs int64 2-4 default=-1 ignorable
  Topics []OffsetCommitRequestTopic 0+
    Name string 0+
    Partitions []OffsetCommitRequestPartition 0+
      PartitionIndex int32 0+
      CommittedOffset int64 0+
      CommittedLeaderEpoch int32 6+ default=-1 ignorable
      CommitTimestamp int64 1 default=-1
      CommittedMetadata string 0+ nullable=0+

response OffsetCommitResponse versions 0-9 flexible 8+
  ThrottleTimeMs int32 3+ ignorable
  Topics []OffsetCommitResponseTopic 0+
    Name string 0+
    Partitions []OffsetCommitResponsePartition 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
