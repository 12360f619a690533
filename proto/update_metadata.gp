# Controller pushes brokers and partition state to every broker (ZooKeeper mode).

api 6 UpdateMetadata
serve 0-8 gr_handle_controller_request
request UpdateMetadataRequest versions 0-8 flexible 6+
  ControllerId int32 0+ -- controller broker id
  isKRaftController bool 8+ default=false -- sender is a KRaft controller
  Type int8 8+ tag=0 tagged=8+ default=0 -- 0 incremental, 1 full
  ControllerEpoch int32 0+ -- controller epoch
  BrokerEpoch int64 5+ default=-1 ignorable -- broker epoch, -1 if unknown
  UngroupedPartitionStates []UpdateMetadataPartitionState 0-4 -- partition state, flat list (old versions)
  TopicStates []UpdateMetadataTopicState 5+ -- per-topic partition state
    TopicName string 5+ -- topic name
    TopicId uuid 7+ ignorable -- topic UUID
    PartitionStates []UpdateMetadataPartitionState 5+ -- per-partition state
  LiveBrokers []UpdateMetadataBroker 0+ -- live brokers
    Id int32 0+ -- broker id
    V0Host string 0 ignorable -- broker host (v0)
    V0Port int32 0 ignorable -- broker port (v0)
    Endpoints []UpdateMetadataEndpoint 1+ ignorable -- broker listeners
      Port int32 1+ -- TCP port
      Host string 1+ -- host name or address
      Listener string 3+ ignorable -- listener name
      SecurityProtocol int16 1+ -- security protocol code
    Rack string 2+ nullable=0+ ignorable -- broker rack, or null

struct UpdateMetadataPartitionState versions 0+
  TopicName string 0-4 ignorable -- topic name
  PartitionIndex int32 0+ -- partition index
  ControllerEpoch int32 0+ -- controller epoch
  Leader int32 0+ -- leader broker id
  LeaderEpoch int32 0+ -- leader epoch
  Isr []int32 0+ -- ISR broker ids
  ZkVersion int32 0+ -- ZooKeeper version of the state
  Replicas []int32 0+ -- replica broker ids
  OfflineReplicas []int32 4+ ignorable -- replicas on offline brokers

response UpdateMetadataResponse versions 0-8 flexible 6+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
