# A share-partition leader writes its share-partitions' start offset and
# record states to the share coordinator. Version 1 (Kafka 4.2, KIP-1226)
# adds the delivery-complete count.

api 85 WriteShareGroupState
serve 0-1 gr_handle_write_share_group_state
request WriteShareGroupStateRequest versions 0-1 flexible 0+
  GroupId string 0+ -- group id
  Topics []WriteStateData 0+ -- topics to write
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- partitions to write
      Partition int32 0+ -- partition index
      StateEpoch int32 0+ -- state epoch of the writer
      LeaderEpoch int32 0+ -- leader epoch of the writer
      StartOffset int64 0+ -- new start offset, -1 if unchanged
      DeliveryCompleteCount int32 1+ default=-1 -- offsets at or above the start offset done delivering, -1 unknown
      StateBatches []StateBatch 0+ -- record states being written
        FirstOffset int64 0+ -- first offset of the batch
        LastOffset int64 0+ -- last offset of the batch, inclusive
        DeliveryState int8 0+ -- record state (share_state.h)
        DeliveryCount int16 0+ -- deliveries so far

response WriteShareGroupStateResponse versions 0-1 flexible 0+
  Results []WriteStateResult 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionResult 0+ -- per-partition results
      Partition int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
