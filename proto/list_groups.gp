# Admin tool lists the groups a coordinator broker knows about.

api 16 ListGroups
serve 0-5 gr_handle_list_groups
request ListGroupsRequest versions 0-5 flexible 3+
  StatesFilter []string 4+ -- only groups in these states
  TypesFilter []string 5+ -- only groups of these types

response ListGroupsResponse versions 0-5 flexible 3+
  ThrottleTimeMs int32 1+ ignorable -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  Groups []ListedGroup 0+ -- listed groups
    GroupId string 0+ -- group id
    ProtocolType string 0+ -- protocol family, e.g. consumer
    GroupState string 4+ ignorable -- state, e.g. Stable or Empty
    GroupType string 5+ ignorable -- group type, classic or consumer
