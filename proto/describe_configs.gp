api 32 DescribeConfigs
request DescribeConfigsRequest versions 0-4 flexible 4+
  Resources []DescribeConfigsResource 0+
    ResourceType int8 0+
    ResourceName string 0+
    ConfigurationKeys []string 0+ nullable=0+
  IncludeSynonyms bool 1+ default=false
  IncludeDocumentation bool 3+ default=false

response DescribeConfigsResponse versions 0-4 flexible 4+
  ThrottleTimeMs int32 0+
  Results []DescribeConfigsResult 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
    ResourceType int8 0+
    ResourceName string 0+
    Configs []DescribeConfigsResourceResult 0+
      Name string 0+
      Value string 0+ nullable=0+
      ReadOnly bool 0+
      IsDefault bool 0
      ConfigSource int8 1+ default=-1 ignorable
      IsSensitive bool 0+
      Synonyms []DescribeConfigsSynonym 1+ ignorable
        Name string 1+
        Value string 1+ nullable=0+
        Source int8 1+
      ConfigType int8 3+ default=0 ignorable
      Documentation string 3+ nullable=0+ ignorable
