# Admin tool sets, deletes, appends to or subtracts from single config entries.

api 44 IncrementalAlterConfigs
serve 0-1 gr_handle_incremental_alter_configs
request IncrementalAlterConfigsRequest versions 0-1 flexible 1+
  Resources []AlterConfigsResource 0+ -- resources to change
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    Configs []AlterableConfig 0+ -- entries to change
      Name string 0+ -- config key
      ConfigOperation int8 0+ -- 0 set, 1 delete, 2 append, 3 subtract
      Value string 0+ nullable=0+ -- config value, or null
  ValidateOnly bool 0+ -- only check, apply nothing

response IncrementalAlterConfigsResponse versions 0-1 flexible 1+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Responses []AlterConfigsResourceResponse 0+ -- per-resource results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name

# ConfigOperation of each entry.
enum AlterConfigOp SET=0 DELETE=1 APPEND=2 SUBTRACT=3
