# Group member stores consumed positions for partitions.

api 8 OffsetCommit
serve 0-10 gr_handle_offset_commit
request OffsetCommitRequest versions 0-10 flexible 8+
  GroupId string 0+ -- group id
  GenerationIdOrMemberEpoch int32 1+ default=-1 ignorable -- generation or member epoch, -1 none
  MemberId string 1+ ignorable -- coordinator-assigned member id
  GroupInstanceId string 7+ nullable=7+ default=null -- static member instance id, or null
  RetentionTimeMs int64 2-4 default=-1 ignorable -- retention override in ms, -1 broker default
  Topics []OffsetCommitRequestTopic 0+ -- offsets to commit, by topic
    Name string 0-9 ignorable -- topic name (v0-9)
    TopicId uuid 10+ ignorable -- topic UUID (v10+)
    Partitions []OffsetCommitRequestPartition 0+ -- partitions to commit
      PartitionIndex int32 0+ -- partition index
      CommittedOffset int64 0+ -- committed offset
      CommittedLeaderEpoch int32 6+ default=-1 ignorable -- epoch matching the offset, -1 unknown
      CommitTimestamp int64 1 default=-1 -- commit time in ms (v1 only)
      CommittedMetadata string 0+ nullable=0+ -- client metadata stored with the offset

response OffsetCommitResponse versions 0-10 flexible 8+
  ThrottleTimeMs int32 3+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []OffsetCommitResponseTopic 0+ -- per-topic results
    Name string 0-9 ignorable -- topic name (v0-9)
    TopicId uuid 10+ ignorable -- topic UUID (v10+)
    Partitions []OffsetCommitResponsePartition 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
