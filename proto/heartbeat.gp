# Member of a classic group proves it is alive and learns about rebalances.

api 12 Heartbeat
serve 0-4 gr_handle_heartbeat
request HeartbeatRequest versions 0-4 flexible 4+
  GroupId string 0+ -- group id
  GenerationId int32 0+ -- group generation
  MemberId string 0+ -- coordinator-assigned member id
  GroupInstanceId string 3+ nullable=3+ default=null -- static member instance id, or null

response HeartbeatResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
