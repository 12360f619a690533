api 67 AllocateProducerIds
request AllocateProducerIdsRequest versions 0 flexible 0+
  BrokerId int32 0+
  BrokerEpoch int64 0+ default=-1

response AllocateProducerIdsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ProducerIdStart int64 0+
  ProducerIdLen int32 0+
