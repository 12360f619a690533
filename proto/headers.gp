header RequestHeader versions 0-2 flexible 2+
  RequestApiKey int16 0+
  RequestApiVersion int16 0+
  CorrelationId int32 0+
  ClientId string 1+ nullable=1+ ignorable flexible=none

header ResponseHeader versions 0-1 flexible 1+
  CorrelationId int32 0+
