api 15 DescribeGroups
request DescribeGroupsRequest versions 0-5 flexible 5+
  Groups []string 0+
  IncludeAuthorizedOperations bool 3+

response DescribeGroupsResponse versions 0-5 flexible 5+
  ThrottleTimeMs int32 1+ ignorable
  Groups []DescribedGroup 0+
    ErrorCode int16 0+
    GroupId string 0+
    GroupState string 0+
    ProtocolType string 0+
    ProtocolData string 0+
    Members []DescribedGroupMember 0+
      MemberId string 0+
      GroupInstanceId string 4+ nullable=4+ default=null ignorable
      ClientId string 0+
      ClientHost string 0+
      MemberMetadata bytes 0+
      MemberAssignment bytes 0+
    AuthorizedOperations int32 3+ default=-2147483648
