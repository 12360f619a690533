data TransactionLogKey versions 0 flexible none
  TransactionalId string 0

data TransactionLogValue versions 0-1 flexible 1+
  ProducerId int64 0+
  ProducerEpoch int16 0+
  TransactionTimeoutMs int32 0+
  TransactionStatus int8 0+
  TransactionPartitions []PartitionsSchema 0+ nullable=0+
    Topic string 0+
    PartitionIds []int32 0+
  TransactionLastUpdateTimestampMs int64 0+
  TransactionStartTimestampMs int64 0+
