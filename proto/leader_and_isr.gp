# Controller tells brokers which partitions they lead or follow (ZooKeeper mode).

api 4 LeaderAndIsr
serve 0-7 gr_handle_controller_request
request LeaderAndIsrRequest versions 0-7 flexible 4+
  ControllerId int32 0+ -- controller broker id
  isKRaftController bool 7+ default=false -- sender is a KRaft controller
  ControllerEpoch int32 0+ -- controller epoch
  BrokerEpoch int64 2+ default=-1 ignorable -- broker epoch, -1 if unknown
  Type int8 5+ -- 0 incremental, 1 full, 2 control
  UngroupedPartitionStates []LeaderAndIsrPartitionState 0-1 -- partition state, flat list (old versions)
  TopicStates []LeaderAndIsrTopicState 2+ -- per-topic partition state
    TopicName string 2+ -- topic name
    TopicId uuid 5+ ignorable -- topic UUID
    PartitionStates []LeaderAndIsrPartitionState 2+ -- per-partition state
  LiveLeaders []LeaderAndIsrLiveLeader 0+ -- brokers that lead partitions here
    BrokerId int32 0+ -- broker id
    HostName string 0+ -- leader host
    Port int32 0+ -- TCP port

struct LeaderAndIsrPartitionState versions 0+
  TopicName string 0-1 ignorable -- topic name
  PartitionIndex int32 0+ -- partition index
  ControllerEpoch int32 0+ -- controller epoch
  Leader int32 0+ -- leader broker id
  LeaderEpoch int32 0+ -- leader epoch
  Isr []int32 0+ -- ISR broker ids
  PartitionEpoch int32 0+ -- partition epoch
  Replicas []int32 0+ -- replica broker ids
  AddingReplicas []int32 3+ ignorable -- replicas being added
  RemovingReplicas []int32 3+ ignorable -- replicas being removed
  IsNew bool 1+ default=false ignorable -- replica is newly created
  LeaderRecoveryState int8 6+ default=0 -- 0 recovered, 1 recovering

response LeaderAndIsrResponse versions 0-7 flexible 4+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  PartitionErrors []LeaderAndIsrPartitionError 0-4 -- per-partition errors
  Topics []LeaderAndIsrTopicError 5+ -- per-topic errors (v5+)
    TopicId uuid 5+ -- topic UUID
    PartitionErrors []LeaderAndIsrPartitionError 5+ -- per-partition errors

struct LeaderAndIsrPartitionError versions 0+
  TopicName string 0-4 ignorable -- topic name
  PartitionIndex int32 0+ -- partition index
  ErrorCode int16 0+ -- Kafka error code, 0 on success
