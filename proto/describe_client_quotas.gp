api 48 DescribeClientQuotas
request DescribeClientQuotasRequest versions 0-1 flexible 1+
  Components []ComponentData 0+
    EntityType string 0+
    MatchType int8 0+
    Match string 0+ nullable=0+
  Strict bool 0+

response DescribeClientQuotasResponse versions 0-1 flexible 1+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Entries []EntryData 0+ nullable=0+
    Entity []EntityData 0+
      EntityType string 0+
      EntityName string 0+ nullable=0+
    Values []ValueData 0+
      Key string 0+
      Value float64 0+
