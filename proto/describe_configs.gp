# Admin tool reads configuration entries of topics, brokers and more.

api 32 DescribeConfigs
serve 0-4 gr_handle_describe_configs
request DescribeConfigsRequest versions 0-4 flexible 4+
  Resources []DescribeConfigsResource 0+ -- resources to describe
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    ConfigurationKeys []string 0+ nullable=0+ -- keys wanted, null for all
  IncludeSynonyms bool 1+ default=false -- also return synonym entries
  IncludeDocumentation bool 3+ default=false -- also return config docs

response DescribeConfigsResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []DescribeConfigsResult 0+ -- per-resource results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    ResourceType int8 0+ -- resource type code
    ResourceName string 0+ -- resource name
    Configs []DescribeConfigsResourceResult 0+ -- config entries
      Name string 0+ -- config key
      Value string 0+ nullable=0+ -- config value, or null
      ReadOnly bool 0+ -- entry cannot be changed
      IsDefault bool 0 -- value is the default (v0)
      ConfigSource int8 1+ default=-1 ignorable -- origin of the value (source code)
      IsSensitive bool 0+ -- value is secret and hidden
      Synonyms []DescribeConfigsSynonym 1+ ignorable -- values from other sources, by precedence
        Name string 1+ -- synonym config key
        Value string 1+ nullable=0+ -- synonym value, or null
        Source int8 1+ -- where the synonym value comes from
      ConfigType int8 3+ default=0 ignorable -- value type code
      Documentation string 3+ nullable=0+ ignorable -- config doc text, or null

# ConfigSource of an entry and of its synonyms (v1+).
enum DescribeConfigsSource UNKNOWN=0 DYNAMIC_TOPIC_CONFIG=1 DYNAMIC_BROKER_CONFIG=2 DYNAMIC_DEFAULT_BROKER_CONFIG=3 STATIC_BROKER_CONFIG=4 DEFAULT_CONFIG=5 DYNAMIC_BROKER_LOGGER_CONFIG=6 CLIENT_METRICS_CONFIG=7 GROUP_CONFIG=8

# ConfigType of an entry (v3+).
enum ConfigValueType UNKNOWN=0 BOOLEAN=1 STRING=2 INT=3 SHORT=4 LONG=5 DOUBLE=6 LIST=7 CLASS=8 PASSWORD=9
