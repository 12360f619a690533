# A broker asks the controller to move leadership off it before stopping.

api 7 ControlledShutdown
serve 1-3 gr_handle_controlled_shutdown
request ControlledShutdownRequest versions 0-3 flexible 3+
  BrokerId int32 0+ -- broker id
  BrokerEpoch int64 2+ default=-1 ignorable -- broker epoch, -1 if unknown

response ControlledShutdownResponse versions 0-3 flexible 3+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  RemainingPartitions []RemainingPartition 0+ -- partitions still led here
    TopicName string 0+ -- topic name
    PartitionIndex int32 0+ -- partition index
