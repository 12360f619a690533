# A transactional producer commits or aborts its open transaction.

api 26 EndTxn
serve 0-4 gr_handle_end_txn
request EndTxnRequest versions 0-4 flexible 3+
  TransactionalId string 0+ -- transactional id
  ProducerId int64 0+ -- producer id
  ProducerEpoch int16 0+ -- producer epoch
  Committed bool 0+ -- true commits, false aborts

response EndTxnResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
