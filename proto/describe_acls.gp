# Admin tool lists access control entries that match a filter.

api 29 DescribeAcls
serve 0-3 gr_handle_describe_acls
request DescribeAclsRequest versions 0-3 flexible 2+
  ResourceTypeFilter int8 0+ -- resource type to match
  ResourceNameFilter string 0+ nullable=0+ -- resource name filter, null matches all
  PatternTypeFilter int8 1+ default=3 -- pattern type to match
  PrincipalFilter string 0+ nullable=0+ -- principal filter, null matches all
  HostFilter string 0+ nullable=0+ -- host filter, null matches all
  Operation int8 0+ -- ACL operation code
  PermissionType int8 0+ -- ACL permission code (allow/deny)

response DescribeAclsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Resources []DescribeAclsResource 0+ -- matching resources
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    PatternType int8 1+ default=3 -- name match style: literal, prefixed...
    Acls []AclDescription 0+ -- entries on this resource
      Principal string 0+ -- principal, e.g. User:alice
      Host string 0+ -- client host of the entry
      Operation int8 0+ -- ACL operation code
      PermissionType int8 0+ -- ACL permission code (allow/deny)
