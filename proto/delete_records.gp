# Admin tool discards data below an offset by advancing the log start offset.

api 21 DeleteRecords
serve 0-2 gr_handle_delete_records
request DeleteRecordsRequest versions 0-2 flexible 2+
  Topics []DeleteRecordsTopic 0+ -- topics to truncate
    Name string 0+ -- topic name
    Partitions []DeleteRecordsPartition 0+ -- partitions to truncate
      PartitionIndex int32 0+ -- partition index
      Offset int64 0+ -- delete below this offset, -1 for HW
  TimeoutMs int32 0+ -- operation time limit in ms

response DeleteRecordsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Topics []DeleteRecordsTopicResult 0+ -- per-topic results
    Name string 0+ -- topic name
    Partitions []DeleteRecordsPartitionResult 0+ -- per-partition results
      PartitionIndex int32 0+ -- partition index
      LowWatermark int64 0+ -- new log start offset
      ErrorCode int16 0+ -- Kafka error code, 0 on success

# Offset: delete up to the high watermark.
enum DeleteRecordsOffset HIGH_WATERMARK=-1
