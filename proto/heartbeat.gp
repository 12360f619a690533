api 12 Heartbeat
request HeartbeatRequest versions 0-4 flexible 4+
  GroupId string 0+
  GenerationId int32 0+
  MemberId string 0+
  GroupInstanceId string 3+ nullable=3+ default=null

response HeartbeatResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 0+
