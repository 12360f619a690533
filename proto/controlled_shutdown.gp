api 7 ControlledShutdown
request ControlledShutdownRequest versions 0-3 flexible 3+
  BrokerId int32 0+
  BrokerEpoch int64 2+ default=-1 ignorable

response ControlledShutdownResponse versions 0-3 flexible 3+
  ErrorCode int16 0+
  RemainingPartitions []RemainingPartition 0+
    TopicName string 0+
    PartitionIndex int32 0+
