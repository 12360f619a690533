api 5 StopReplica
request StopReplicaRequest versions 0-4 flexible 2+
  ControllerId int32 0+
  isKRaftController bool 4+ default=false
  ControllerEpoch int32 0+
  BrokerEpoch int64 1+ default=-1 ignorable
  DeletePartitions bool 0-2
  UngroupedPartitions []StopReplicaPartitionV0 0
    TopicName string 0
    PartitionIndex int32 0
  Topics []StopReplicaTopicV1 1-2
    Name string 1-2
    PartitionIndexes []int32 1-2
  TopicStates []StopReplicaTopicState 3+
    TopicName string 3+
    PartitionStates []StopReplicaPartitionState 3+
      PartitionIndex int32 3+
      LeaderEpoch int32 3+ default=-1
      DeletePartition bool 3+

response StopReplicaResponse versions 0-4 flexible 2+
  ErrorCode int16 0+
  PartitionErrors []StopReplicaPartitionError 0+
    TopicName string 0+
    PartitionIndex int32 0+
    ErrorCode int16 0+
