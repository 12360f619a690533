# Members of a new-protocol (KIP-848) consumer group join, heartbeat and
# receive their partition assignment through this single API.

api 68 ConsumerGroupHeartbeat
serve 0-1 gr_handle_consumer_group_heartbeat
request ConsumerGroupHeartbeatRequest versions 0-1 flexible 0+
  GroupId string 0+ -- group id
  MemberId string 0+ -- member id, empty on first join
  MemberEpoch int32 0+ -- member epoch; 0 joins, -1 leaves
  InstanceId string 0+ nullable=0+ default=null -- static instance id, or null
  RackId string 0+ nullable=0+ default=null -- rack of the member, or null
  RebalanceTimeoutMs int32 0+ default=-1 -- max time to revoke partitions, -1 unchanged
  SubscribedTopicNames []string 0+ nullable=0+ default=null -- subscription, null if unchanged
  SubscribedTopicRegex string 1+ nullable=1+ default=null -- subscription regex, null if unchanged
  ServerAssignor string 0+ nullable=0+ default=null -- server assignor name, null if unchanged
  TopicPartitions []TopicPartitions 0+ nullable=0+ default=null -- partitions the member owns, null unchanged
    TopicId uuid 0+ -- topic UUID
    Partitions []int32 0+ -- partition indexes

response ConsumerGroupHeartbeatResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
  MemberId string 0+ nullable=0+ default=null -- member id, or null
  MemberEpoch int32 0+ -- member epoch after this heartbeat
  HeartbeatIntervalMs int32 0+ -- next heartbeat due in ms
  Assignment Assignment 0+ nullable=0+ default=null -- new assignment, null if unchanged
    TopicPartitions []TopicPartitions 0+ -- assigned partitions per topic

struct TopicPartitions versions 0+
  TopicId uuid 0+ -- topic UUID
  Partitions []int32 0+ -- partition indexes
