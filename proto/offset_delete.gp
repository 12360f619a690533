api 47 OffsetDelete
request OffsetDeleteRequest versions 0 flexible none
  GroupId string 0+
  Topics []OffsetDeleteRequestTopic 0+
    Name string 0+
    Partitions []OffsetDeleteRequestPartition 0+
      PartitionIndex int32 0+

response OffsetDeleteResponse versions 0 flexible none
  ErrorCode int16 0+
  ThrottleTimeMs int32 0+ ignorable
  Topics []OffsetDeleteResponseTopic 0+
    Name string 0+
    Partitions []OffsetDeleteResponsePartition 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
