# Members quit a classic group so that it rebalances without waiting.

api 13 LeaveGroup
serve 0-5 gr_handle_leave_group
request LeaveGroupRequest versions 0-5 flexible 4+
  GroupId string 0+ -- group id
  MemberId string 0-2 -- leaving member id (v0-2)
  Members []MemberIdentity 3+ -- leaving members (v3+)
    MemberId string 3+ -- coordinator-assigned member id
    GroupInstanceId string 3+ nullable=3+ default=null -- static member instance id, or null
    Reason string 5+ nullable=5+ default=null ignorable -- why it leaves, for logs

response LeaveGroupResponse versions 0-5 flexible 4+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  Members []MemberResponse 3+ -- per-member results
    MemberId string 3+ -- coordinator-assigned member id
    GroupInstanceId string 3+ nullable=3+ -- static member instance id, or null
    ErrorCode int16 3+ -- Kafka error code, 0 on success
