# Admin tool sets or removes quota values for users, client ids or IPs.

api 49 AlterClientQuotas
serve 0-1 gr_handle_alter_client_quotas
request AlterClientQuotasRequest versions 0-1 flexible 1+
  Entries []EntryData 0+ -- quota changes per entity
    Entity []EntityData 0+ -- parts naming the entity
      EntityType string 0+ -- entity kind, e.g. user or client-id
      EntityName string 0+ nullable=0+ -- entity name; null means default entity
    Ops []OpData 0+ -- quota edits
      Key string 0+ -- quota key name
      Value float64 0+ -- new quota value
      Remove bool 0+ -- drop the quota instead of setting
  ValidateOnly bool 0+ -- only check, apply nothing

response AlterClientQuotasResponse versions 0-1 flexible 1+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Entries []EntryData 0+ -- per-entity results
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    Entity []EntityData 0+ -- parts naming the entity
      EntityType string 0+ -- entity kind, e.g. user or client-id
      EntityName string 0+ nullable=0+ -- entity name; null means default entity
