# A transactional producer registers the partitions it will write to;
# from v4 brokers batch several transactions and may ask to verify only.

api 24 AddPartitionsToTxn
serve 0-5 gr_handle_add_partitions_to_txn
request AddPartitionsToTxnRequest versions 0-5 flexible 3+
  Transactions []AddPartitionsToTxnTransaction 4+ -- transactions to extend (v4+)
    TransactionalId string 4+ -- transactional id
    ProducerId int64 4+ -- producer id
    ProducerEpoch int16 4+ -- producer epoch
    VerifyOnly bool 4+ default=false -- only check partitions are already added
    Topics []AddPartitionsToTxnTopic 4+ -- topics to add
  V3AndBelowTransactionalId string 0-3 -- transactional id (v0-3)
  V3AndBelowProducerId int64 0-3 -- producer id (v0-3)
  V3AndBelowProducerEpoch int16 0-3 -- producer epoch (v0-3)
  V3AndBelowTopics []AddPartitionsToTxnTopic 0-3 -- topics to add (v0-3)

struct AddPartitionsToTxnTopic versions 0+
  Name string 0+ -- topic name
  Partitions []int32 0+ -- partition indexes to add

response AddPartitionsToTxnResponse versions 0-5 flexible 3+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 4+ ignorable -- error for the whole request (v4+)
  ResultsByTransaction []AddPartitionsToTxnResult 4+ -- per-transaction results (v4+)
    TransactionalId string 4+ -- transactional id
    TopicResults []AddPartitionsToTxnTopicResult 4+ -- per-topic results
  ResultsByTopicV3AndBelow []AddPartitionsToTxnTopicResult 0-3 -- per-topic results (v0-3)

struct AddPartitionsToTxnTopicResult versions 0+
  Name string 0+ -- topic name
  ResultsByPartition []AddPartitionsToTxnPartitionResult 0+ -- per-partition results

struct AddPartitionsToTxnPartitionResult versions 0+
  PartitionIndex int32 0+ -- partition index
  PartitionErrorCode int16 0+ -- partition error code, 0 on success
