api 35 DescribeLogDirs
request DescribeLogDirsRequest versions 0-4 flexible 2+
  Topics []DescribableLogDirTopic 0+ nullable=0+
    Topic string 0+
    Partitions []int32 0+

response DescribeLogDirsResponse versions 0-4 flexible 2+
  ThrottleTimeMs int32 0+
  ErrorCode int16 3+ ignorable
  Results []DescribeLogDirsResult 0+
    ErrorCode int16 0+
    LogDir string 0+
    Topics []DescribeLogDirsTopic 0+
      Name string 0+
      Partitions []DescribeLogDirsPartition 0+
        PartitionIndex int32 0+
        PartitionSize int64 0+
        OffsetLag int64 0+
        IsFutureKey bool 0+
    TotalBytes int64 4+ default=-1 ignorable
    UsableBytes int64 4+ default=-1 ignorable
