data ConsumerProtocolSubscription versions 0-3 flexible none
  Topics []string 0+
  UserData bytes 0+ nullable=0+ default=null
  OwnedPartitions []TopicPartition 1+ ignorable
    Topic string 1+
    Partitions []int32 1+
  GenerationId int32 2+ default=-1 ignorable
  RackId string 3+ nullable=3+ default=null ignorable

data ConsumerProtocolAssignment versions 0-3 flexible none
  AssignedPartitions []TopicPartition 0+
    Topic string 0+
    Partitions []int32 0+
  UserData bytes 0+ nullable=0+ default=null
