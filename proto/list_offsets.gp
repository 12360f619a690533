# Client resolves a timestamp (or earliest/latest marker) to an offset per partition.

api 2 ListOffsets
serve 0-10 gr_handle_list_offsets
request ListOffsetsRequest versions 0-10 flexible 6+
  ReplicaId int32 0+ -- follower broker id, -1 for consumers
  IsolationLevel int8 2+ -- 0 read uncommitted, 1 read committed
  Topics []ListOffsetsTopic 0+ -- topics to look up
    Name string 0+ -- topic name
    Partitions []ListOffsetsPartition 0+ -- partitions to look up
      PartitionIndex int32 0+ -- partition index
      CurrentLeaderEpoch int32 4+ default=-1 ignorable -- caller's view of leader epoch, -1 skips check
      Timestamp int64 0+ -- time in ms, or -1 latest, -2 earliest
      MaxNumOffsets int32 0 default=1 -- max offsets to return (v0)
  TimeoutMs int32 10+ default=30000 ignorable -- wait for remote-storage lookups, ms (v10+)

response ListOffsetsResponse versions 0-10 flexible 6+
  ThrottleTimeMs int32 2+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []ListOffsetsTopicResponse 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []ListOffsetsPartitionResponse 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      OldStyleOffsets []int64 0 -- found offsets (v0 only)
      Timestamp int64 1+ default=-1 -- timestamp of the found record, -1 none
      Offset int64 1+ default=-1 -- found offset, -1 if none
      LeaderEpoch int32 4+ default=-1 -- epoch of the found offset

# Timestamps that ask for a position rather than a time.
enum ListOffsetsTimestamp LATEST=-1 EARLIEST=-2 MAX_TIMESTAMP=-3 EARLIEST_LOCAL=-4 LATEST_TIERED=-5
