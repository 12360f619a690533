# Admin tool reads transaction state from the transaction coordinator.

api 65 DescribeTransactions
serve 0 gr_handle_describe_transactions
request DescribeTransactionsRequest versions 0 flexible 0+
  TransactionalIds []string 0+ -- transactional ids to describe

response DescribeTransactionsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  TransactionStates []TransactionState 0+ -- per-transaction state entries
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    TransactionalId string 0+ -- transactional id
    TransactionState string 0+ -- transaction state name
    TransactionTimeoutMs int32 0+ -- timeout of the transaction, ms
    TransactionStartTimeMs int64 0+ -- transaction start in epoch ms, -1 none
    ProducerId int64 0+ -- producer id
    ProducerEpoch int16 0+ -- producer epoch
    Topics []TopicData 0+ -- partitions in the transaction
      Topic string 0+ -- topic name
      Partitions []int32 0+ -- partition indexes
