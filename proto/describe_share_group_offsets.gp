# Admin: the start offset of each share-partition of share groups.
# Version 1 (Kafka 4.2, KIP-1226) adds the lag.

api 90 DescribeShareGroupOffsets
serve 0-1 gr_handle_describe_share_group_offsets
request DescribeShareGroupOffsetsRequest versions 0-1 flexible 0+
  Groups []DescribeShareGroupOffsetsRequestGroup 0+ -- groups to describe
    GroupId string 0+ -- group id
    Topics []DescribeShareGroupOffsetsRequestTopic 0+ nullable=0+ -- topics to describe, null for all
      TopicName string 0+ -- topic name
      Partitions []int32 0+ -- partition indexes

response DescribeShareGroupOffsetsResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Groups []DescribeShareGroupOffsetsResponseGroup 0+ -- per-group results
    GroupId string 0+ -- group id
    Topics []DescribeShareGroupOffsetsResponseTopic 0+ -- per-topic results
      TopicName string 0+ -- topic name
      TopicId uuid 0+ -- topic UUID
      Partitions []DescribeShareGroupOffsetsResponsePartition 0+ -- per-partition results
        PartitionIndex int32 0+ -- partition index
        StartOffset int64 0+ -- share-partition start offset
        LeaderEpoch int32 0+ -- leader epoch
        Lag int64 1+ default=-1 ignorable -- share-partition lag, -1 unknown
        ErrorCode int16 0+ -- Kafka error code, 0 on success
        ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
    ErrorCode int16 0+ -- group-level Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ default=null -- group-level error detail, or null
