# Classic group leader submits the assignment; every member gets its share back.

api 14 SyncGroup
serve 0-5 gr_handle_sync_group
request SyncGroupRequest versions 0-5 flexible 4+
  GroupId string 0+ -- group id
  GenerationId int32 0+ -- group generation
  MemberId string 0+ -- coordinator-assigned member id
  GroupInstanceId string 3+ nullable=3+ default=null -- static member instance id, or null
  ProtocolType string 5+ nullable=5+ default=null ignorable -- protocol family, or null
  ProtocolName string 5+ nullable=5+ default=null ignorable -- chosen protocol, or null
  Assignments []SyncGroupRequestAssignment 0+ -- leader's per-member assignments
    MemberId string 0+ -- coordinator-assigned member id
    Assignment bytes 0+ -- opaque assignment of that member

response SyncGroupResponse versions 0-5 flexible 4+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ProtocolType string 5+ nullable=5+ default=null ignorable -- protocol family, or null
  ProtocolName string 5+ nullable=5+ default=null ignorable -- chosen protocol, or null
  Assignment bytes 0+ -- this member's opaque assignment
