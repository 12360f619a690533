api 23 OffsetForLeaderEpoch
request OffsetForLeaderEpochRequest versions 0-4 flexible 4+
  ReplicaId int32 3+ default=-2 ignorable
  Topics []OffsetForLeaderTopic 0+
    Topic string 0+
    Partitions []OffsetForLeaderPartition 0+
      Partition int32 0+
      CurrentLeaderEpoch int32 2+ default=-1 ignorable
      LeaderEpoch int32 0+

response OffsetForLeaderEpochResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 2+ ignorable
  Topics []OffsetForLeaderTopicResult 0+
    Topic string 0+
    Partitions []EpochEndOffset 0+
      ErrorCode int16 0+
      Partition int32 0+
      LeaderEpoch int32 1+ default=-1 ignorable
      EndOffset int64 0+ default=-1
