api 6 UpdateMetadata
request UpdateMetadataRequest versions 0-8 flexible 6+
  ControllerId int32 0+
  isKRaftController bool 8+ default=false
  Type int8 8+ tag=0 tagged=8+ default=0
  ControllerEpoch int32 0+
  BrokerEpoch int64 5+ default=-1 ignorable
  UngroupedPartitionStates []UpdateMetadataPartitionState 0-4
  TopicStates []UpdateMetadataTopicState 5+
    TopicName string 5+
    TopicId uuid 7+ ignorable
    PartitionStates []UpdateMetadataPartitionState 5+
  LiveBrokers []UpdateMetadataBroker 0+
    Id int32 0+
    V0Host string 0 ignorable
    V0Port int32 0 ignorable
    Endpoints []UpdateMetadataEndpoint 1+ ignorable
      Port int32 1+
      Host string 1+
      Listener string 3+ ignorable
      SecurityProtocol int16 1+
    Rack string 2+ nullable=0+ ignorable

struct UpdateMetadataPartitionState versions 0+
  TopicName string 0-4 ignorable
  PartitionIndex int32 0+
  ControllerEpoch int32 0+
  Leader int32 0+
  LeaderEpoch int32 0+
  Isr []int32 0+
  ZkVersion int32 0+
  Replicas []int32 0+
  OfflineReplicas []int32 4+ ignorable

response UpdateMetadataResponse versions 0-8 flexible 6+
  ErrorCode int16 0+
