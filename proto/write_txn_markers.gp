api 27 WriteTxnMarkers
request WriteTxnMarkersRequest versions 0-1 flexible 1+
  Markers []WritableTxnMarker 0+
    ProducerId int64 0+
    ProducerEpoch int16 0+
    TransactionResult bool 0+
    Topics []WritableTxnMarkerTopic 0+
      Name string 0+
      PartitionIndexes []int32 0+
    CoordinatorEpoch int32 0+

response WriteTxnMarkersResponse versions 0-1 flexible 1+
  Markers []WritableTxnMarkerResult 0+
    ProducerId int64 0+
    Topics []WritableTxnMarkerTopicResult 0+
      Name string 0+
      Partitions []WritableTxnMarkerPartitionResult 0+
        PartitionIndex int32 0+
        ErrorCode int16 0+
