# Describes share groups: state, epochs and each member's assignment.
# Version 0 was Kafka 4.0's early access; Kafka 4.1+ serves only version 1
# (the same fields).

api 77 ShareGroupDescribe
serve 1 gr_handle_share_group_describe
request ShareGroupDescribeRequest versions 0-1 flexible 0+
  GroupIds []string 0+ -- groups to describe
  IncludeAuthorizedOperations bool 0+ -- also return the caller's allowed operations

response ShareGroupDescribeResponse versions 0-1 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Groups []DescribedGroup 0+ -- one entry per group asked for
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ default=null -- readable error detail, or null
    GroupId string 0+ -- group id
    GroupState string 0+ -- group state name, or empty
    GroupEpoch int32 0+ -- group epoch
    AssignmentEpoch int32 0+ -- epoch of the target assignment
    AssignorName string 0+ -- assignor in use
    Members []Member 0+ -- group members
      MemberId string 0+ -- member id
      RackId string 0+ nullable=0+ default=null -- rack of the member, or null
      MemberEpoch int32 0+ -- member epoch
      ClientId string 0+ -- client id
      ClientHost string 0+ -- client host address
      SubscribedTopicNames []string 0+ -- subscribed topics
      Assignment Assignment 0+ -- the member's current assignment
    AuthorizedOperations int32 0+ default=-2147483648 -- allowed-operations bitfield, INT32_MIN if not asked

struct TopicPartitions versions 0+
  TopicId uuid 0+ -- topic UUID
  TopicName string 0+ -- topic name
  Partitions []int32 0+ -- partition indexes

struct Assignment versions 0+
  TopicPartitions []TopicPartitions 0+ -- assigned partitions per topic
