# Controller tells a broker to stop serving replicas and maybe delete them (ZooKeeper mode).

api 5 StopReplica
serve 0-4 gr_handle_controller_request
request StopReplicaRequest versions 0-4 flexible 2+
  ControllerId int32 0+ -- controller broker id
  isKRaftController bool 4+ default=false -- sender is a KRaft controller
  ControllerEpoch int32 0+ -- controller epoch
  BrokerEpoch int64 1+ default=-1 ignorable -- broker epoch, -1 if unknown
  DeletePartitions bool 0-2 -- also delete the data (v0-2)
  UngroupedPartitions []StopReplicaPartitionV0 0 -- flat partition list (v0)
    TopicName string 0 -- topic name
    PartitionIndex int32 0 -- partition index
  Topics []StopReplicaTopicV1 1-2 -- partitions grouped by topic (v1-2)
    Name string 1-2 -- topic name
    PartitionIndexes []int32 1-2 -- partition indexes
  TopicStates []StopReplicaTopicState 3+ -- per-topic state (v3+)
    TopicName string 3+ -- topic name
    PartitionStates []StopReplicaPartitionState 3+ -- per-partition state
      PartitionIndex int32 3+ -- partition index
      LeaderEpoch int32 3+ default=-1 -- leader epoch, -1 to skip check
      DeletePartition bool 3+ -- also delete the data

response StopReplicaResponse versions 0-4 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  PartitionErrors []StopReplicaPartitionError 0+ -- per-partition errors
    TopicName string 0+ -- topic name
    PartitionIndex int32 0+ -- partition index
    ErrorCode int16 0+ -- Kafka error code, 0 on success
