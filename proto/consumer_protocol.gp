# What the classic consumer puts inside the opaque JoinGroup metadata
# and SyncGroup assignment bytes.

data ConsumerProtocolSubscription versions 0-3 flexible none
  Topics []string 0+ -- subscribed topic names
  UserData bytes 0+ nullable=0+ default=null -- opaque assignor data, or null
  OwnedPartitions []TopicPartition 1+ ignorable -- partitions owned now
    Topic string 1+ -- topic name
    Partitions []int32 1+ -- partition indexes
  GenerationId int32 2+ default=-1 ignorable -- generation of owned partitions, -1 none
  RackId string 3+ nullable=3+ default=null ignorable -- consumer rack, or null

data ConsumerProtocolAssignment versions 0-3 flexible none
  AssignedPartitions []TopicPartition 0+ -- partitions given to the member
    Topic string 0+ -- topic name
    Partitions []int32 0+ -- partition indexes
  UserData bytes 0+ nullable=0+ default=null -- opaque assignor data, or null
