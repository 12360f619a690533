# Admin tool reads quota values of entities that match a filter.

api 48 DescribeClientQuotas
serve 0-1 gr_handle_describe_client_quotas
request DescribeClientQuotasRequest versions 0-1 flexible 1+
  Components []ComponentData 0+ -- filter parts, all must match
    EntityType string 0+ -- entity kind, e.g. user or client-id
    MatchType int8 0+ -- 0 exact, 1 default, 2 any
    Match string 0+ nullable=0+ -- name to match for exact
  Strict bool 0+ -- only entities with exactly these parts

response DescribeClientQuotasResponse versions 0-1 flexible 1+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Entries []EntryData 0+ nullable=0+ -- matching entities, or null
    Entity []EntityData 0+ -- parts naming the entity
      EntityType string 0+ -- entity kind, e.g. user or client-id
      EntityName string 0+ nullable=0+ -- entity name; null means default entity
    Values []ValueData 0+ -- quotas set on this entity
      Key string 0+ -- quota key name
      Value float64 0+ -- quota value
