api 4 LeaderAndIsr
request LeaderAndIsrRequest versions 0-7 flexible 4+
  ControllerId int32 0+
  isKRaftController bool 7+ default=false
  ControllerEpoch int32 0+
  BrokerEpoch int64 2+ default=-1 ignorable
  Type int8 5+
  UngroupedPartitionStates []LeaderAndIsrPartitionState 0-1
  TopicStates []LeaderAndIsrTopicState 2+
    TopicName string 2+
    TopicId uuid 5+ ignorable
    PartitionStates []LeaderAndIsrPartitionState 2+
  LiveLeaders []LeaderAndIsrLiveLeader 0+
    BrokerId int32 0+
    HostName string 0+
    Port int32 0+

struct LeaderAndIsrPartitionState versions 0+
  TopicName string 0-1 ignorable
  PartitionIndex int32 0+
  ControllerEpoch int32 0+
  Leader int32 0+
  LeaderEpoch int32 0+
  Isr []int32 0+
  PartitionEpoch int32 0+
  Replicas []int32 0+
  AddingReplicas []int32 3+ ignorable
  RemovingReplicas []int32 3+ ignorable
  IsNew bool 1+ default=false ignorable
  LeaderRecoveryState int8 6+ default=0

response LeaderAndIsrResponse versions 0-7 flexible 4+
  ErrorCode int16 0+
  PartitionErrors []LeaderAndIsrPartitionError 0-4
  Topics []LeaderAndIsrTopicError 5+
    TopicId uuid 5+
    PartitionErrors []LeaderAndIsrPartitionError 5+

struct LeaderAndIsrPartitionError versions 0+
  TopicName string 0-4 ignorable
  PartitionIndex int32 0+
  ErrorCode int16 0+
