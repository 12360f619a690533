# A producer obtains (or bumps) its producer id and epoch, needed for
# idempotent and transactional writes.

api 22 InitProducerId
serve 0-5 gr_handle_init_producer_id
request InitProducerIdRequest versions 0-5 flexible 2+
  TransactionalId string 0+ nullable=0+ -- transactional id, null if idempotent only
  TransactionTimeoutMs int32 0+ -- timeout of the transaction, ms
  ProducerId int64 3+ default=-1 -- current producer id, -1 if none
  ProducerEpoch int16 3+ default=-1 -- current epoch, -1 if none

response InitProducerIdResponse versions 0-5 flexible 2+
  ThrottleTimeMs int32 0+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ProducerId int64 0+ default=-1 -- assigned producer id, -1 on error
  ProducerEpoch int16 0+ -- assigned producer epoch
