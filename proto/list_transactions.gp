# Admin tool lists transactions on a coordinator, filtered by state and producer.

api 66 ListTransactions
serve 0-1 gr_handle_list_transactions
request ListTransactionsRequest versions 0-1 flexible 0+
  StateFilters []string 0+ -- only these states; empty for all
  ProducerIdFilters []int64 0+ -- only these producers; empty for all
  DurationFilter int64 1+ default=-1 -- only older than this many ms, -1 off

response ListTransactionsResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  UnknownStateFilters []string 0+ -- state filters the broker did not know
  TransactionStates []TransactionState 0+ -- per-transaction state entries
    TransactionalId string 0+ -- transactional id
    ProducerId int64 0+ -- producer id
    TransactionState string 0+ -- transaction state name
