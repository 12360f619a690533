# A share-partition leader (or the group coordinator) asks the share
# coordinator to create a share-partition's durable state.

api 83 InitializeShareGroupState
serve 0 gr_handle_initialize_share_group_state
request InitializeShareGroupStateRequest versions 0 flexible 0+
  GroupId string 0+ -- group id
  Topics []InitializeStateData 0+ -- topics to initialize
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionData 0+ -- partitions to initialize
      Partition int32 0+ -- partition index
      StateEpoch int32 0+ -- new state epoch
      StartOffset int64 0+ -- start offset, -1 if not initialized here

response InitializeShareGroupStateResponse versions 0 flexible 0+
  Results []InitializeStateResult 0+ -- per-topic results
    TopicId uuid 0+ -- topic UUID
    Partitions []PartitionResult 0+ -- per-partition results
      Partition int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
