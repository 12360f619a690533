api 33 AlterConfigs
request AlterConfigsRequest versions 0-2 flexible 2+
  Resources []AlterConfigsResource 0+
    ResourceType int8 0+
    ResourceName string 0+
    Configs []AlterableConfig 0+
      Name string 0+
      Value string 0+ nullable=0+
  ValidateOnly bool 0+

response AlterConfigsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+
  Responses []AlterConfigsResourceResponse 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
    ResourceType int8 0+
    ResourceName string 0+
