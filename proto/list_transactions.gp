api 66 ListTransactions
request ListTransactionsRequest versions 0-1 flexible 0+
  StateFilters []string 0+
  ProducerIdFilters []int64 0+
  DurationFilter int64 1+ default=-1

response ListTransactionsResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  UnknownStateFilters []string 0+
  TransactionStates []TransactionState 0+
    TransactionalId string 0+
    ProducerId int64 0+
    TransactionState string 0+
