# Admin tool removes access control entries that match filters.

api 31 DeleteAcls
serve 0-3 gr_handle_delete_acls
request DeleteAclsRequest versions 0-3 flexible 2+
  Filters []DeleteAclsFilter 0+ -- filters selecting entries to remove
    ResourceTypeFilter int8 0+ -- resource type to match
    ResourceNameFilter string 0+ nullable=0+ -- resource name filter, null matches all
    PatternTypeFilter int8 1+ default=3 -- pattern type to match
    PrincipalFilter string 0+ nullable=0+ -- principal filter, null matches all
    HostFilter string 0+ nullable=0+ -- host filter, null matches all
    Operation int8 0+ -- ACL operation code
    PermissionType int8 0+ -- ACL permission code (allow/deny)

response DeleteAclsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  FilterResults []DeleteAclsFilterResult 0+ -- per-filter results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    MatchingAcls []DeleteAclsMatchingAcl 0+ -- entries the filter matched
      ErrorCode int16 0+ -- Kafka error code, 0 on success
      ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
      ResourceType int8 0+ -- resource type code
      ResourceName string 0+ -- resource name
      PatternType int8 1+ default=3 -- name match style: literal, prefixed...
      Principal string 0+ -- principal, e.g. User:alice
      Host string 0+ -- client host of the entry
      Operation int8 0+ -- ACL operation code
      PermissionType int8 0+ -- ACL permission code (allow/deny)
