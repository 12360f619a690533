# A broker asks the controller for a fresh block of producer ids.

api 67 AllocateProducerIds
request AllocateProducerIdsRequest versions 0 flexible 0+
  BrokerId int32 0+ -- broker id
  BrokerEpoch int64 0+ default=-1 -- broker epoch, -1 if unknown

response AllocateProducerIdsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ProducerIdStart int64 0+ -- first id of the block
  ProducerIdLen int32 0+ -- number of ids in the block
