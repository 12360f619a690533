# A share-partition leader reads the durable state of its share-partitions
# from the share coordinator.

api 84 ReadShareGroupState
serve 0 gr_handle_read_share_group_state
request ReadShareGroupStateRequest versions 0 flexible 0+
  GroupId string 0+ -- group id
  Topics []ReadStateData 0+ -- topics to read
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- partitions to read
      Partition int32 0+ -- partition index
      LeaderEpoch int32 0+ -- leader epoch of the reader

response ReadShareGroupStateResponse versions 0 flexible 0+
  Results []ReadStateResult 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionResult 0+ -- per-partition results
      Partition int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
      StateEpoch int32 0+ -- state epoch
      StartOffset int64 0+ -- start offset, -1 if not initialized
      StateBatches []StateBatch 0+ -- in-flight record states
        FirstOffset int64 0+ -- first offset of the batch
        LastOffset int64 0+ -- last offset of the batch, inclusive
        DeliveryState int8 0+ -- record state (share_state.h)
        DeliveryCount int16 0+ -- deliveries so far
