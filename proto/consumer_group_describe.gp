# Admin tool inspects groups that use the new (KIP-848) consumer protocol.

api 69 ConsumerGroupDescribe
serve 0-1 gr_handle_consumer_group_describe
request ConsumerGroupDescribeRequest versions 0-1 flexible 0+
  GroupIds []string 0+ -- groups to describe
  IncludeAuthorizedOperations bool 0+ -- also return allowed operations bitfield

response ConsumerGroupDescribeResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Groups []DescribedGroup 0+ -- per-group descriptions
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
    GroupId string 0+ -- group id
    GroupState string 0+ -- state, e.g. Stable or Empty
    GroupEpoch int32 0+ -- group epoch
    AssignmentEpoch int32 0+ -- epoch of the target assignment
    AssignorName string 0+ -- server assignor in use
    Members []Member 0+ -- current members
      MemberId string 0+ -- coordinator-assigned member id
      InstanceId string 0+ nullable=0+ default=null -- static instance id, or null
      RackId string 0+ nullable=0+ default=null -- rack of the member, or null
      MemberEpoch int32 0+ -- member epoch
      ClientId string 0+ -- client id
      ClientHost string 0+ -- client host address
      SubscribedTopicNames []string 0+ -- topics the member subscribes to
      SubscribedTopicRegex string 0+ nullable=0+ default=null -- subscription regex, or null
      Assignment Assignment 0+ -- partitions the member owns now
      TargetAssignment Assignment 0+ -- partitions the member should own
      MemberType int8 1+ default=-1 -- -1 unknown, 0 classic member, 1 consumer member
    AuthorizedOperations int32 0+ default=-2147483648 -- bitfield of allowed operations

struct TopicPartitions versions 0+
  TopicId uuid 0+ -- topic UUID
  TopicName string 0+ -- topic name
  Partitions []int32 0+ -- partition indexes

struct Assignment versions 0+
  TopicPartitions []TopicPartitions 0+ -- assigned partitions per topic
