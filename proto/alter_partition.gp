api 56 AlterPartition
request AlterPartitionRequest versions 0-3 flexible 0+
  BrokerId int32 0+
  BrokerEpoch int64 0+ default=-1
  Topics []TopicData 0+
    TopicName string 0-1 ignorable
    TopicId uuid 2+ ignorable
    Partitions []PartitionData 0+
      PartitionIndex int32 0+
      LeaderEpoch int32 0+
      NewIsr []int32 0-2
      NewIsrWithEpochs []BrokerState 3+
        BrokerId int32 3+
        BrokerEpoch int64 3+ default=-1
      LeaderRecoveryState int8 1+ default=0
      PartitionEpoch int32 0+

response AlterPartitionResponse versions 0-3 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  Topics []TopicData 0+
    TopicName string 0-1 ignorable
    TopicId uuid 2+ ignorable
    Partitions []PartitionData 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
      LeaderId int32 0+
      LeaderEpoch int32 0+
      Isr []int32 0+
      LeaderRecoveryState int8 1+ default=0 ignorable
      PartitionEpoch int32 0+
