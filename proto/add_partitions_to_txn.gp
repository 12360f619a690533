api 24 AddPartitionsToTxn
request AddPartitionsToTxnRequest versions 0-5 flexible 3+
  Transactions []AddPartitionsToTxnTransaction 4+
    TransactionalId string 4+
    ProducerId int64 4+
    ProducerEpoch int16 4+
    VerifyOnly bool 4+ default=false
    Topics []AddPartitionsToTxnTopic 4+
  V3AndBelowTransactionalId string 0-3
  V3AndBelowProducerId int64 0-3
  V3AndBelowProducerEpoch int16 0-3
  V3AndBelowTopics []AddPartitionsToTxnTopic 0-3

struct AddPartitionsToTxnTopic versions 0+
  Name string 0+
  Partitions []int32 0+

response AddPartitionsToTxnResponse versions 0-5 flexible 3+
  ThrottleTimeMs int32 0+
  ErrorCode int16 4+ ignorable
  ResultsByTransaction []AddPartitionsToTxnResult 4+
    TransactionalId string 4+
    TopicResults []AddPartitionsToTxnTopicResult 4+
  ResultsByTopicV3AndBelow []AddPartitionsToTxnTopicResult 0-3

struct AddPartitionsToTxnTopicResult versions 0+
  Name string 0+
  ResultsByPartition []AddPartitionsToTxnPartitionResult 0+

struct AddPartitionsToTxnPartitionResult versions 0+
  PartitionIndex int32 0+
  PartitionErrorCode int16 0+
