api 29 DescribeAcls
request DescribeAclsRequest versions 0-3 flexible 2+
  ResourceTypeFilter int8 0+
  ResourceNameFilter string 0+ nullable=0+
  PatternTypeFilter int8 1+ default=3
  PrincipalFilter string 0+ nullable=0+
  HostFilter string 0+ nullable=0+
  Operation int8 0+
  PermissionType int8 0+

response DescribeAclsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Resources []DescribeAclsResource 0+
    ResourceType int8 0+
    ResourceName string 0+
    PatternType int8 1+ default=3
    Acls []AclDescription 0+
      Principal string 0+
      Host string 0+
      Operation int8 0+
      PermissionType int8 0+
