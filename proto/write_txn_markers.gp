# Transaction coordinator asks leaders to write commit or abort markers.

api 27 WriteTxnMarkers
serve 0-1 gr_handle_write_txn_markers
request WriteTxnMarkersRequest versions 0-1 flexible 1+
  Markers []WritableTxnMarker 0+ -- markers to write
    ProducerId int64 0+ -- producer id
    ProducerEpoch int16 0+ -- producer epoch
    TransactionResult bool 0+ -- true commit marker, false abort
    Topics []WritableTxnMarkerTopic 0+ -- topics to mark
      Name string 0+ -- topic name
      PartitionIndexes []int32 0+ -- partition indexes
    CoordinatorEpoch int32 0+ -- epoch of the transaction coordinator

response WriteTxnMarkersResponse versions 0-1 flexible 1+
  Markers []WritableTxnMarkerResult 0+ -- per-producer results
    ProducerId int64 0+ -- producer id
    Topics []WritableTxnMarkerTopicResult 0+ -- per-topic results
      Name string 0+ -- topic name
      Partitions []WritableTxnMarkerPartitionResult 0+ -- per-partition results
        PartitionIndex int32 0+ -- partition index
        ErrorCode int16 0+ -- Kafka error code, 0 on success
