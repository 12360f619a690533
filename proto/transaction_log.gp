# Records kept in the __transaction_state topic: one value per transactional id.

data TransactionLogKey versions 0 flexible none
  TransactionalId string 0 -- transactional id

data TransactionLogValue versions 0-1 flexible 1+
  ProducerId int64 0+ -- producer id
  ProducerEpoch int16 0+ -- producer epoch
  TransactionTimeoutMs int32 0+ -- timeout of the transaction, ms
  TransactionStatus int8 0+ -- state code of the transaction
  TransactionPartitions []PartitionsSchema 0+ nullable=0+ -- partitions the transaction touches, or null
    Topic string 0+ -- topic name
    PartitionIds []int32 0+ -- partition indexes
  TransactionLastUpdateTimestampMs int64 0+ -- last update in epoch ms
  TransactionStartTimestampMs int64 0+ -- transaction start in epoch ms
