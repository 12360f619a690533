api 2 ListOffsets
request ListOffsetsRequest versions 0-8 flexible 6+
  ReplicaId int32 0+
  IsolationLevel int8 2+
  Topics []ListOffsetsTopic 0+
    Name string 0+
    Partitions []ListOffsetsPartition 0+
      PartitionIndex int32 0+
      CurrentLeaderEpoch int32 4+ default=-1 ignorable
      Timestamp int64 0+
      MaxNumOffsets int32 0 default=1

response ListOffsetsResponse versions 0-8 flexible 6+
  ThrottleTimeMs int32 2+ ignorable
  Topics []ListOffsetsTopicResponse 0+
    Name string 0+
    Partitions []ListOffsetsPartitionResponse 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
      OldStyleOffsets []int64 0
      Timestamp int64 1+ default=-1
      Offset int64 1+ default=-1
      LeaderEpoch int32 4+ default=-1
