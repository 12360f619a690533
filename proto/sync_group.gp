api 14 SyncGroup
request SyncGroupRequest versions 0-5 flexible 4+
  GroupId string 0+
  GenerationId int32 0+
  MemberId string 0+
  GroupInstanceId string 3+ nullable=3+ default=null
  ProtocolType string 5+ nullable=5+ default=null ignorable
  ProtocolName string 5+ nullable=5+ default=null ignorable
  Assignments []SyncGroupRequestAssignment 0+
    MemberId string 0+
    Assignment bytes 0+

response SyncGroupResponse versions 0-5 flexible 4+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 0+
  ProtocolType string 5+ nullable=5+ default=null ignorable
  ProtocolName string 5+ nullable=5+ default=null ignorable
  Assignment bytes 0+
