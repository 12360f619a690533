# Admin tool removes a group's committed offsets for some partitions.

api 47 OffsetDelete
serve 0 gr_handle_offset_delete
request OffsetDeleteRequest versions 0 flexible none
  GroupId string 0+ -- group id
  Topics []OffsetDeleteRequestTopic 0+ -- topics whose offsets go
    Name string 0+ -- topic name
    Partitions []OffsetDeleteRequestPartition 0+ -- per-partition entries
      PartitionIndex int32 0+ -- partition index

response OffsetDeleteResponse versions 0 flexible none
  ErrorCode int16 0+ -- group-level error code
  ThrottleTimeMs int32 0+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []OffsetDeleteResponseTopic 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []OffsetDeleteResponsePartition 0+ -- per-partition entries
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
