# A member enters a classic group; the coordinator runs the rebalance and
# names one member leader.

api 11 JoinGroup
serve 0-9 gr_handle_join_group
request JoinGroupRequest versions 0-9 flexible 6+
  GroupId string 0+ -- group id
  SessionTimeoutMs int32 0+ -- member dropped after this silence, ms
  RebalanceTimeoutMs int32 1+ default=-1 ignorable -- max time to rejoin during a rebalance, ms
  MemberId string 0+ -- member id, empty on first join
  GroupInstanceId string 5+ nullable=5+ default=null -- static member instance id, or null
  ProtocolType string 0+ -- protocol family, e.g. consumer
  Protocols []JoinGroupRequestProtocol 0+ -- protocols offered, in preference order
    Name string 0+ -- assignment protocol name
    Metadata bytes 0+ -- protocol-specific member metadata
  Reason string 8+ nullable=8+ default=null ignorable -- free-text cause of the join, for logs

response JoinGroupResponse versions 0-9 flexible 6+
  ThrottleTimeMs int32 2+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  GenerationId int32 0+ default=-1 -- new generation, -1 on error
  ProtocolType string 7+ nullable=7+ default=null ignorable -- group protocol family, or null
  ProtocolName string 0+ nullable=7+ -- protocol chosen for the group
  Leader string 0+ -- member id of the group leader
  SkipAssignment bool 9+ default=false -- leader must not compute assignment
  MemberId string 0+ -- this member's id
  Members []JoinGroupResponseMember 0+ -- all members, for the leader only
    MemberId string 0+ -- coordinator-assigned member id
    GroupInstanceId string 5+ nullable=5+ default=null ignorable -- static member instance id, or null
    Metadata bytes 0+ -- member's protocol metadata
