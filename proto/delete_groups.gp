# Admin tool removes empty groups together with their committed offsets.

api 42 DeleteGroups
serve 0-2 gr_handle_delete_groups
request DeleteGroupsRequest versions 0-2 flexible 2+
  GroupsNames []string 0+ -- group ids to delete

response DeleteGroupsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []DeletableGroupResult 0+ -- per-group results
    GroupId string 0+ -- group id
    ErrorCode int16 0+ -- Kafka error code, 0 on success
