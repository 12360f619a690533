api 1 Fetch
request FetchRequest versions 0-16 flexible 12+
  ClusterId string 12+ nullable=12+ tag=0 tagged=12+ default=null ignorable
  ReplicaId int32 0-14 default=-1
  ReplicaState ReplicaState 15+ tag=1 tagged=15+
    ReplicaId int32 15+ default=-1
    ReplicaEpoch int64 15+ default=-1
  MaxWaitMs int32 0+
  MinBytes int32 0+
  MaxBytes int32 3+ default=0x7fffffff ignorable
  IsolationLevel int8 4+ default=0 ignorable
  SessionId int32 7+ default=0 ignorable
  SessionEpoch int32 7+ default=-1 ignorable
  Topics []FetchTopic 0+
    Topic string 0-12 ignorable
    TopicId uuid 13+ ignorable
    Partitions []FetchPartition 0+
      Partition int32 0+
      CurrentLeaderEpoch int32 9+ default=-1 ignorable
      FetchOffset int64 0+
      LastFetchedEpoch int32 12+ default=-1
      LogStartOffset int64 5+ default=-1 ignorable
      PartitionMaxBytes int32 0+
  ForgottenTopicsData []ForgottenTopic 7+
    Topic string 7-12 ignorable
    TopicId uuid 13+ ignorable
    Partitions []int32 7+
  RackId string 11+ default="" ignorable

response FetchResponse versions 0-16 flexible 12+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 7+ ignorable
  SessionId int32 7+ default=0
  Responses []FetchableTopicResponse 0+
    Topic string 0-12 ignorable
    TopicId uuid 13+ ignorable
    Partitions []PartitionData 0+
      PartitionIndex int32 0+
      ErrorCode int16 0+
      HighWatermark int64 0+
      LastStableOffset int64 4+ default=-1 ignorable
      LogStartOffset int64 5+ default=-1 ignorable
      DivergingEpoch EpochEndOffset 12+ tag=0 tagged=12+
        Epoch int32 12+ default=-1
        EndOffset int64 12+ default=-1
      CurrentLeader LeaderIdAndEpoch 12+ tag=1 tagged=12+
        LeaderId int32 12+ default=-1
        LeaderEpoch int32 12+ default=-1
      SnapshotId SnapshotId 12+ tag=2 tagged=12+
        EndOffset int64 0+ default=-1
        Epoch int32 0+ default=-1
      AbortedTransactions []AbortedTransaction 4+ nullable=4+ ignorable
        ProducerId int64 4+
        FirstOffset int64 4+
      PreferredReadReplica int32 11+ default=-1
      Records records 0+ nullable=0+
  NodeEndpoints []NodeEndpoint 16+ tag=0 tagged=16+
    NodeId int32 16+
    Host string 16+
    Port int32 16+
    Rack string 16+ nullable=16+ default=null
