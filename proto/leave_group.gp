api 13 LeaveGroup
request LeaveGroupRequest versions 0-5 flexible 4+
  GroupId string 0+
  MemberId string 0-2
  Members []MemberIdentity 3+
    MemberId string 3+
    GroupInstanceId string 3+ nullable=3+ default=null
    Reason string 5+ nullable=5+ default=null ignorable

response LeaveGroupResponse versions 0-5 flexible 4+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 0+
  Members []MemberResponse 3+
    MemberId string 3+
    GroupInstanceId string 3+ nullable=3+
    ErrorCode int16 3+
