api 16 ListGroups
request ListGroupsRequest versions 0-5 flexible 3+
  StatesFilter []string 4+
  TypesFilter []string 5+

response ListGroupsResponse versions 0-5 flexible 3+
  ThrottleTimeMs int32 1+ ignorable
  ErrorCode int16 0+
  Groups []ListedGroup 0+
    GroupId string 0+
    ProtocolType string 0+
    GroupState string 4+ ignorable
    GroupType string 5+ ignorable
