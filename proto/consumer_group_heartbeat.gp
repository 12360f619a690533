api 68 ConsumerGroupHeartbeat
request ConsumerGroupHeartbeatRequest versions 0 flexible 0+
  GroupId string 0+
  MemberId string 0+
  MemberEpoch int32 0+
  InstanceId string 0+ nullable=0+ default=null
  RackId string 0+ nullable=0+ default=null
  RebalanceTimeoutMs int32 0+ default=-1
  SubscribedTopicNames []string 0+ nullable=0+ default=null
  ServerAssignor string 0+ nullable=0+ default=null
  TopicPartitions []TopicPartitions 0+ nullable=0+ default=null
    TopicId uuid 0+
    Partitions []int32 0+

response ConsumerGroupHeartbeatResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+ default=null
  MemberId string 0+ nullable=0+ default=null
  MemberEpoch int32 0+
  HeartbeatIntervalMs int32 0+
  Assignment Assignment 0+ nullable=0+ default=null
    TopicPartitions []TopicPartitions 0+

struct TopicPartitions versions 0+
  TopicId uuid 0+
  Partitions []int32 0+
