api 25 AddOffsetsToTxn
request AddOffsetsToTxnRequest versions 0-4 flexible 3+
  TransactionalId string 0+
  ProducerId int64 0+
  ProducerEpoch int16 0+
  GroupId string 0+

response AddOffsetsToTxnResponse versions 0-4 flexible 3+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
