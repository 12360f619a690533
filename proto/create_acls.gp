api 30 CreateAcls
request CreateAclsRequest versions 0-3 flexible 2+
  Creations []AclCreation 0+
    ResourceType int8 0+
    ResourceName string 0+
    ResourcePatternType int8 1+ default=3
    Principal string 0+
    Host string 0+
    Operation int8 0+
    PermissionType int8 0+

response CreateAclsResponse versions 0-3 flexible 2+
  ThrottleTimeMs int32 0+
  Results []AclCreationResult 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
