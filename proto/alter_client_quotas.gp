api 49 AlterClientQuotas
request AlterClientQuotasRequest versions 0-1 flexible 1+
  Entries []EntryData 0+
    Entity []EntityData 0+
      EntityType string 0+
      EntityName string 0+ nullable=0+
    Ops []OpData 0+
      Key string 0+
      Value float64 0+
      Remove bool 0+
  ValidateOnly bool 0+

response AlterClientQuotasResponse versions 0-1 flexible 1+
  ThrottleTimeMs int32 0+
  Entries []EntryData 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
    Entity []EntityData 0+
      EntityType string 0+
      EntityName string 0+ nullable=0+
