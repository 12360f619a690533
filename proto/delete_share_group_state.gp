# Deletes share-partitions' durable state from the share coordinator (when
# a share group or its offsets are deleted).

api 86 DeleteShareGroupState
serve 0 gr_handle_delete_share_group_state
request DeleteShareGroupStateRequest versions 0 flexible 0+
  GroupId string 0+ -- group id
  Topics []DeleteStateData 0+ -- topics to delete
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- partitions to delete
      Partition int32 0+ -- partition index

response DeleteShareGroupStateResponse versions 0 flexible 0+
  Results []DeleteStateResult 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionResult 0+ -- per-partition results
      Partition int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
