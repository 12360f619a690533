# Admin tool reads, per log directory, replica sizes, lag and free space.

api 35 DescribeLogDirs
serve 0-4 gr_handle_describe_log_dirs
request DescribeLogDirsRequest versions 0-4 flexible 2+
  Topics []DescribableLogDirTopic 0+ nullable=0+ -- partitions to report, null for all
    Topic string 0+ -- topic name
    Partitions []int32 0+ -- partition indexes

response DescribeLogDirsResponse versions 0-4 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 3+ ignorable -- error for the whole request
  Results []DescribeLogDirsResult 0+ -- per-directory results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    LogDir string 0+ -- directory path
    Topics []DescribeLogDirsTopic 0+ -- topics in this directory
      Name string 0+ -- topic name
      Partitions []DescribeLogDirsPartition 0+ -- partitions in this directory
        PartitionIndex int32 0+ -- partition index
        PartitionSize int64 0+ -- replica size in bytes
        OffsetLag int64 0+ -- lag behind the log end, in offsets
        IsFutureKey bool 0+ -- replica is a pending move target
    TotalBytes int64 4+ default=-1 ignorable -- directory capacity, -1 unknown
    UsableBytes int64 4+ default=-1 ignorable -- free space, -1 unknown
