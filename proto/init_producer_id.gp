api 22 InitProducerId
request InitProducerIdRequest versions 0-5 flexible 2+
  TransactionalId string 0+ nullable=0+
  TransactionTimeoutMs int32 0+
  ProducerId int64 3+ default=-1
  ProducerEpoch int16 3+ default=-1

response InitProducerIdResponse versions 0-5 flexible 2+
  ThrottleTimeMs int32 0+ ignorable
  ErrorCode int16 0+
  ProducerId int64 0+ default=-1
  ProducerEpoch int16 0+
