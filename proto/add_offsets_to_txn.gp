# A transactional producer tells its coordinator that a group's offset
# commits will be part of the current transaction.

api 25 AddOffsetsToTxn
serve 0-4 gr_handle_add_offsets_to_txn
request AddOffsetsToTxnRequest versions 0-4 flexible 3+
  TransactionalId string 0+ -- transactional id
  ProducerId int64 0+ -- producer id
  ProducerEpoch int16 0+ -- producer epoch
  GroupId string 0+ -- group whose commits join the transaction

response AddOffsetsToTxnResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
