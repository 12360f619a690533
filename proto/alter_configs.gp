# Admin tool replaces the whole config set of a resource (legacy, non-incremental).

api 33 AlterConfigs
serve 0-2 gr_handle_alter_configs
request AlterConfigsRequest versions 0-2 flexible 2+
  Resources []AlterConfigsResource 0+ -- resources to change
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    Configs []AlterableConfig 0+ -- full new config set
      Name string 0+ -- config key
      Value string 0+ nullable=0+ -- config value, or null
  ValidateOnly bool 0+ -- only check, apply nothing

response AlterConfigsResponse versions 0-2 flexible 2+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Responses []AlterConfigsResourceResponse 0+ -- per-resource results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
