api 69 ConsumerGroupDescribe
request ConsumerGroupDescribeRequest versions 0 flexible 0+
  GroupIds []string 0+
  IncludeAuthorizedOperations bool 0+

response ConsumerGroupDescribeResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  Groups []DescribedGroup 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+ default=null
    GroupId string 0+
    GroupState string 0+
    GroupEpoch int32 0+
    AssignmentEpoch int32 0+
    AssignorName string 0+
    Members []Member 0+
      MemberId string 0+
      InstanceId string 0+ nullable=0+ default=null
      RackId string 0+ nullable=0+ default=null
      MemberEpoch int32 0+
      ClientId string 0+
      ClientHost string 0+
      SubscribedTopicNames []string 0+
      SubscribedTopicRegex string 0+ nullable=0+ default=null
      Assignment Assignment 0+
      TargetAssignment Assignment 0+
    AuthorizedOperations int32 0+ default=-2147483648

struct TopicPartitions versions 0+
  TopicId uuid 0+
  TopicName string 0+
  Partitions []int32 0+

struct Assignment versions 0+
  TopicPartitions []TopicPartitions 0+
