api 21 DeleteRecords
request DeleteRecordsRequest versions 0-2 flexible 2+
  Topics []DeleteRecordsTopic 0+
    Name string 0+
    Partitions []DeleteRecordsPartition 0+
      PartitionIndex int32 0+
      Offset int64 0+
  TimeoutMs int32 0+

response DeleteRecordsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+
  Topics []DeleteRecordsTopicResult 0+
    Name string 0+
    Partitions []DeleteRecordsPartitionResult 0+
      PartitionIndex int32 0+
      LowWatermark int64 0+
      ErrorCode int16 0+
