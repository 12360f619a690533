# Member or admin tool reads committed offsets of one or more groups.

api 9 OffsetFetch
serve 0-10 gr_handle_offset_fetch
request OffsetFetchRequest versions 0-10 flexible 6+
  GroupId string 0-7 -- group to read (v0-7)
  Topics []OffsetFetchRequestTopic 0-7 nullable=2-7 -- topics to read, null for all
    Name string 0-7 -- topic name
    PartitionIndexes []int32 0-7 -- partition indexes
  Groups []OffsetFetchRequestGroup 8+ -- groups to read (v8+)
    GroupId string 8+ -- group id
    MemberId string 9+ nullable=9+ default=null ignorable -- caller member id, or null
    MemberEpoch int32 9+ default=-1 ignorable -- caller member epoch, -1 none
    Topics []OffsetFetchRequestTopics 8+ nullable=8+ -- topics to read, null for all
      Name string 8-9 ignorable -- topic name (v8-9)
      TopicId uuid 10+ ignorable -- topic UUID (v10+)
      PartitionIndexes []int32 8+ -- partition indexes
  RequireStable bool 7+ default=false -- fail on pending transactional offsets

response OffsetFetchResponse versions 0-10 flexible 6+
  ThrottleTimeMs int32 3+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []OffsetFetchResponseTopic 0-7 -- per-topic results (v0-7)
    Name string 0-7 -- topic name
    Partitions []OffsetFetchResponsePartition 0-7 -- per-partition entries
      PartitionIndex int32 0-7 -- partition index
      CommittedOffset int64 0-7 -- committed offset
      CommittedLeaderEpoch int32 5-7 default=-1 ignorable -- epoch matching the offset, -1 unknown
      Metadata string 0-7 nullable=0-7 -- client metadata stored with the offset
      ErrorCode int16 0-7 -- Kafka error code, 0 on success
  ErrorCode int16 2-7 default=0 ignorable -- error for the whole request (v2-7)
  Groups []OffsetFetchResponseGroup 8+ -- per-group results (v8+)
    GroupId string 8+ -- group id
    Topics []OffsetFetchResponseTopics 8+ -- per-topic results
      Name string 8-9 ignorable -- topic name (v8-9)
      TopicId uuid 10+ ignorable -- topic UUID (v10+)
      Partitions []OffsetFetchResponsePartitions 8+ -- per-partition entries
        PartitionIndex int32 8+ -- partition index
        CommittedOffset int64 8+ -- committed offset
        CommittedLeaderEpoch int32 8+ default=-1 ignorable -- epoch matching the offset, -1 unknown
        Metadata string 8+ nullable=8+ -- client metadata stored with the offset
        ErrorCode int16 8+ -- Kafka error code, 0 on success
    ErrorCode int16 8+ default=0 -- error for the whole group
