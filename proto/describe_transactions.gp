api 65 DescribeTransactions
request DescribeTransactionsRequest versions 0 flexible 0+
  TransactionalIds []string 0+

response DescribeTransactionsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  TransactionStates []TransactionState 0+
    ErrorCode int16 0+
    TransactionalId string 0+
    TransactionState string 0+
    TransactionTimeoutMs int32 0+
    TransactionStartTimeMs int64 0+
    ProducerId int64 0+
    ProducerEpoch int16 0+
    Topics []TopicData 0+
      Topic string 0+
      Partitions []int32 0+
