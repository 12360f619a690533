api 9 OffsetFetch
request OffsetFetchRequest versions 0-9 flexible 6+
  GroupId string 0-7
  Topics []OffsetFetchRequestTopic 0-7 nullable=2-7
    Name string 0-7
    PartitionIndexes []int32 0-7
  Groups []OffsetFetchRequestGroup 8+
    GroupId string 8+
    MemberId string 9+ nullable=9+ default=null ignorable
    MemberEpoch int32 9+ default=-1 ignorable
    Topics []OffsetFetchRequestTopics 8+ nullable=8+
      Name string 8+
      PartitionIndexes []int32 8+
  RequireStable bool 7+ default=false

response OffsetFetchResponse versions 0-9 flexible 6+
  ThrottleTimeMs int32 3+ ignorable
  Topics []OffsetFetchResponseTopic 0-7
    Name string 0-7
    Partitions []OffsetFetchResponsePartition 0-7
      PartitionIndex int32 0-7
      CommittedOffset int64 0-7
      CommittedLeaderEpoch int32 5-7 default=-1 ignorable
      Metadata string 0-7 nullable=0-7
      ErrorCode int16 0-7
  ErrorCode int16 2-7 default=0 ignorable
  Groups []OffsetFetchResponseGroup 8+
    GroupId string 8+
    Topics []OffsetFetchResponseTopics 8+
      Name string 8+
      Partitions []OffsetFetchResponsePartitions 8+
        PartitionIndex int32 8+
        CommittedOffset int64 8+
        CommittedLeaderEpoch int32 8+ default=-1 ignorable
        Metadata string 8+ nullable=8+
        ErrorCode int16 8+
    ErrorCode int16 8+ default=0
