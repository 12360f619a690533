api 26 EndTxn
request EndTxnRequest versions 0-4 flexible 3+
  TransactionalId string 0+
  ProducerId int64 0+
  ProducerEpoch int16 0+
  Committed bool 0+

response EndTxnResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
