# Reads the start offset (and, v1 of Kafka 4.2 with KIP-1226, the
# delivery-complete count) of share-partitions, without their record states:
# what the admin offset APIs report.

api 87 ReadShareGroupStateSummary
serve 0-1 gr_handle_read_share_group_state_summary
request ReadShareGroupStateSummaryRequest versions 0-1 flexible 0+
  GroupId string 0+ -- group id
  Topics []ReadStateSummaryData 0+ -- topics to read
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- partitions to read
      Partition int32 0+ -- partition index
      LeaderEpoch int32 0+ -- leader epoch of the reader

response ReadShareGroupStateSummaryResponse versions 0-1 flexible 0+
  Results []ReadStateSummaryResult 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionResult 0+ -- per-partition results
      Partition int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
      StateEpoch int32 0+ -- state epoch
      LeaderEpoch int32 0+ -- leader epoch last written
      StartOffset int64 0+ -- start offset
      DeliveryCompleteCount int32 1+ default=-1 ignorable -- offsets at or above the start offset done delivering, -1 unknown
