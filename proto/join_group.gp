api 11 JoinGroup
request JoinGroupRequest versions 0-9 flexible 6+
  GroupId string 0+
  SessionTimeoutMs int32 0+
  RebalanceTimeoutMs int32 1+ default=-1 ignorable
  MemberId string 0+
  GroupInstanceId string 5+ nullable=5+ default=null
  ProtocolType string 0+
  Protocols []JoinGroupRequestProtocol 0+
    Name string 0+
    Metadata bytes 0+
  Reason string 8+ nullable=8+ default=null ignorable

response JoinGroupResponse versions 0-9 flexible 6+
  ThrottleTimeMs int32 2+ ignorable
  ErrorCode int16 0+
  GenerationId int32 0+ default=-1
  ProtocolType string 7+ nullable=7+ default=null ignorable
  ProtocolName string 0+ nullable=7+
  Leader string 0+
  SkipAssignment bool 9+ default=false
  MemberId string 0+
  Members []JoinGroupResponseMember 0+
    MemberId string 0+
    GroupInstanceId string 5+ nullable=5+ default=null ignorable
    Metadata bytes 0+
