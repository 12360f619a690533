# Admin tool adds access control entries.

api 30 CreateAcls
serve 0-3 gr_handle_create_acls
request CreateAclsRequest versions 0-3 flexible 2+
  Creations []AclCreation 0+ -- ACL entries to add
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    ResourcePatternType int8 1+ default=3 -- name match style: literal, prefixed...
    Principal string 0+ -- principal, e.g. User:alice
    Host string 0+ -- client host, * for any
    Operation int8 0+ -- ACL operation code
    PermissionType int8 0+ -- ACL permission code (allow/deny)

response CreateAclsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []AclCreationResult 0+ -- per-entry results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
