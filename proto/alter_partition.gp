# A partition leader asks the controller to change the partition's ISR.

api 56 AlterPartition
serve 0-1 gr_handle_alter_partition

request AlterPartitionRequest versions 0-3 flexible 0+
  BrokerId int32 0+ -- broker id
  BrokerEpoch int64 0+ default=-1 -- broker epoch, -1 if unknown
  Topics []TopicData 0+ -- topics to change
    TopicName string 0-1 ignorable -- topic name
    TopicId uuid 2+ ignorable -- topic UUID
    Partitions []PartitionData 0+ -- partitions to change
      PartitionIndex int32 0+ -- partition index
      LeaderEpoch int32 0+ -- leader epoch
      NewIsr []int32 0-2 -- proposed ISR ids (v0-2)
      NewIsrWithEpochs []BrokerState 3+ -- proposed ISR with broker epochs (v3+)
        BrokerId int32 3+ -- broker id
        BrokerEpoch int64 3+ default=-1 -- broker epoch, -1 if unknown
      LeaderRecoveryState int8 1+ default=0 -- 0 recovered, 1 recovering
      PartitionEpoch int32 0+ -- partition epoch

response AlterPartitionResponse versions 0-3 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  Topics []TopicData 0+ -- per-topic results
    TopicName string 0-1 ignorable -- topic name
    TopicId uuid 2+ ignorable -- topic UUID
    Partitions []PartitionData 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      LeaderId int32 0+ -- leader broker id, -1 if none
      LeaderEpoch int32 0+ -- leader epoch
      Isr []int32 0+ -- ISR broker ids
      LeaderRecoveryState int8 1+ default=0 ignorable -- 0 recovered, 1 recovering
      PartitionEpoch int32 0+ -- partition epoch
