# Follower or consumer asks where a leader epoch ends, to find and
# truncate a diverged log.

api 23 OffsetForLeaderEpoch
serve 0-4 gr_handle_offset_for_leader_epoch
request OffsetForLeaderEpochRequest versions 0-4 flexible 4+
  ReplicaId int32 3+ default=-2 ignorable -- follower id, -1 consumer, -2 debug
  Topics []OffsetForLeaderTopic 0+ -- topics to query
    Topic string 0+ -- topic name
    Partitions []OffsetForLeaderPartition 0+ -- partitions to query
      Partition int32 0+ -- partition index
      CurrentLeaderEpoch int32 2+ default=-1 ignorable -- caller's view of leader epoch, -1 skips check
      LeaderEpoch int32 0+ -- epoch whose end offset is wanted

response OffsetForLeaderEpochResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 2+ ignorable -- quota throttle delay in ms, 0 if none
  Topics []OffsetForLeaderTopicResult 0+ -- per-topic results
    Topic string 0+ -- topic name
    Partitions []EpochEndOffset 0+ -- per-partition results
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      Partition int32 0+ -- partition index
      LeaderEpoch int32 1+ default=-1 ignorable -- largest epoch not above the asked one
      EndOffset int64 0+ default=-1 -- where that epoch ends, -1 unknown
