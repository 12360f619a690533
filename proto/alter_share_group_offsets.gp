# Admin: sets the start offset of share-partitions of an empty share group.

api 91 AlterShareGroupOffsets
serve 0 gr_handle_alter_share_group_offsets
request AlterShareGroupOffsetsRequest versions 0 flexible 0+
  GroupId string 0+ -- group id
  Topics []AlterShareGroupOffsetsRequestTopic 0+ -- topics to alter
    TopicName string 0+ -- topic name
    Partitions []AlterShareGroupOffsetsRequestPartition 0+ -- partitions to alter
      PartitionIndex int32 0+ -- partition index
      StartOffset int64 0+ -- new share-partition start offset

response AlterShareGroupOffsetsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- top-level Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- top-level error detail, or null
  Responses []AlterShareGroupOffsetsResponseTopic 0+ -- per-topic results
    TopicName string 0+ -- topic name
    TopicId uuid 0+ -- topic UUID
    Partitions []AlterShareGroupOffsetsResponsePartition 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
