# Members of a share group (KIP-932) join, heartbeat and receive the
# partitions they may fetch through this single API. Several members may
# be assigned the same partition. Version 0 was Kafka 4.0's early access;
# Kafka 4.1+ serves only version 1 (the same fields).

api 76 ShareGroupHeartbeat
serve 1 gr_handle_share_group_heartbeat
request ShareGroupHeartbeatRequest versions 0-1 flexible 0+
  GroupId string 0+ -- group id
  MemberId string 0+ -- member id, chosen by the client
  MemberEpoch int32 0+ -- member epoch; 0 joins, -1 leaves
  RackId string 0+ nullable=0+ default=null -- rack of the member, null if unchanged
  SubscribedTopicNames []string 0+ nullable=0+ default=null -- subscription, null if unchanged

response ShareGroupHeartbeatResponse versions 0-1 flexible 0+
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
