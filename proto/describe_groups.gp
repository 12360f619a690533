# Admin tool reads the state and members of classic groups.

api 15 DescribeGroups
serve 0-6 gr_handle_describe_groups
request DescribeGroupsRequest versions 0-6 flexible 5+
  Groups []string 0+ -- group ids to describe
  IncludeAuthorizedOperations bool 3+ -- also return allowed operations bitfield

response DescribeGroupsResponse versions 0-6 flexible 5+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  Groups []DescribedGroup 0+ -- per-group descriptions
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 6+ nullable=6+ default=null ignorable -- readable error detail, or null (v6+)
    GroupId string 0+ -- group id
    GroupState string 0+ -- state, e.g. Stable or Empty
    ProtocolType string 0+ -- protocol family, e.g. consumer
    ProtocolData string 0+ -- chosen protocol name when stable
    Members []DescribedGroupMember 0+ -- current members
      MemberId string 0+ -- coordinator-assigned member id
      GroupInstanceId string 4+ nullable=4+ default=null ignorable -- static member instance id, or null
      ClientId string 0+ -- client id
      ClientHost string 0+ -- client host address
      MemberMetadata bytes 0+ -- member's protocol metadata
      MemberAssignment bytes 0+ -- member's current assignment
    AuthorizedOperations int32 3+ default=-2147483648 -- bitfield of allowed operations
