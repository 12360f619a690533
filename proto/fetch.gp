# Consumers and follower replicas read record batches; from v7 with
# incremental fetch sessions.

api 1 Fetch
# Not below v4: message formats before v2 are not supported (as in Kafka 4.0).
serve 4-18 gr_handle_fetch
request FetchRequest versions 0-18 flexible 12+
  ClusterId string 12+ nullable=12+ tag=0 tagged=12+ default=null ignorable -- expected cluster id, or null
  ReplicaId int32 0-14 default=-1 -- follower broker id, -1 for consumers
  ReplicaState ReplicaState 15+ tag=1 tagged=15+ -- follower identity (v15+)
    ReplicaId int32 15+ default=-1 -- follower broker id, -1 for consumers
    ReplicaEpoch int64 15+ default=-1 -- follower broker epoch, -1 if none
  MaxWaitMs int32 0+ -- max time to wait for MinBytes, ms
  MinBytes int32 0+ -- reply once this many bytes exist
  MaxBytes int32 3+ default=0x7fffffff ignorable -- cap on total response bytes
  IsolationLevel int8 4+ default=0 ignorable -- 0 read uncommitted, 1 read committed
  SessionId int32 7+ default=0 ignorable -- fetch session id, 0 for none
  SessionEpoch int32 7+ default=-1 ignorable -- fetch session epoch, -1 for full
  Topics []FetchTopic 0+ -- topics to read
    Topic string 0-12 ignorable -- topic name
    TopicId uuid 13+ ignorable -- topic UUID
    Partitions []FetchPartition 0+ -- partitions to read
      Partition int32 0+ -- partition index
      CurrentLeaderEpoch int32 9+ default=-1 ignorable -- caller's view of leader epoch, -1 skips check
      FetchOffset int64 0+ -- offset to read from
      LastFetchedEpoch int32 12+ default=-1 -- epoch of last fetched batch, -1 if none
      LogStartOffset int64 5+ default=-1 ignorable -- follower log start, -1 for consumers
      PartitionMaxBytes int32 0+ -- cap on bytes for this partition
      ReplicaDirectoryId uuid 17+ tag=0 tagged=17+ ignorable -- KRaft voter's log dir (v17+)
      HighWatermark int64 18+ tag=1 tagged=18+ default=0x7fffffffffffffff ignorable -- KRaft voter's high watermark (v18+)
  ForgottenTopicsData []ForgottenTopic 7+ -- partitions to drop from the session
    Topic string 7-12 ignorable -- topic name
    TopicId uuid 13+ ignorable -- topic UUID
    Partitions []int32 7+ -- partition indexes to drop
  RackId string 11+ default="" ignorable -- consumer rack, for nearest-replica reads

response FetchResponse versions 0-18 flexible 12+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 7+ ignorable -- session-level error code
  SessionId int32 7+ default=0 -- fetch session id, 0 for none
  Responses []FetchableTopicResponse 0+ -- per-topic data
    Topic string 0-12 ignorable -- topic name
    TopicId uuid 13+ ignorable -- topic UUID
    Partitions []PartitionData 0+ -- per-partition data
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      HighWatermark int64 0+ -- partition high watermark
      LastStableOffset int64 4+ default=-1 ignorable -- last stable offset, -1 unknown
      LogStartOffset int64 5+ default=-1 ignorable -- log start offset, -1 unknown
      DivergingEpoch EpochEndOffset 12+ tag=0 tagged=12+ -- where the follower log diverges
        Epoch int32 12+ default=-1 -- largest matching epoch, -1 unknown
        EndOffset int64 12+ default=-1 -- end offset of that epoch
      CurrentLeader LeaderIdAndEpoch 12+ tag=1 tagged=12+ -- new leader, when the leader moved
        LeaderId int32 12+ default=-1 -- new leader id, -1 if unknown
        LeaderEpoch int32 12+ default=-1 -- new leader epoch, -1 if unknown
      SnapshotId SnapshotId 12+ tag=2 tagged=12+ -- snapshot the follower must load
        EndOffset int64 0+ default=-1 -- snapshot end offset
        Epoch int32 0+ default=-1 -- snapshot epoch
      AbortedTransactions []AbortedTransaction 4+ nullable=4+ ignorable -- aborted transactions in range, or null
        ProducerId int64 4+ -- producer id that aborted
        FirstOffset int64 4+ -- offset where the aborted transaction began
      PreferredReadReplica int32 11+ default=-1 -- replica to fetch from instead, -1 none
      Records records 0+ nullable=0+ -- record batches, or null
  NodeEndpoints []NodeEndpoint 16+ tag=0 tagged=16+ -- endpoints of brokers named in the response
    NodeId int32 16+ -- broker id
    Host string 16+ -- host name or address
    Port int32 16+ -- TCP port
    Rack string 16+ nullable=16+ default=null -- rack id, or null

# SessionEpoch values with a meaning of their own (v7+).
enum FetchSessionEpoch INITIAL=0 FINAL=-1
