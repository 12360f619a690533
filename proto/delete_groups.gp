api 42 DeleteGroups
request DeleteGroupsRequest versions 0-2 flexible 2+
  GroupsNames []string 0+

response DeleteGroupsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+
  Results []DeletableGroupResult 0+
    GroupId string 0+
    ErrorCode int16 0+
