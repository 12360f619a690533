# The headers in front of every request body and every response body.

header RequestHeader versions 0-2 flexible 2+
  RequestApiKey int16 0+ -- API key of the body
  RequestApiVersion int16 0+ -- version of the body
  CorrelationId int32 0+ -- echoed back in the response
  ClientId string 1+ nullable=1+ ignorable flexible=none -- client id, old-style encoding always

header ResponseHeader versions 0-1 flexible 1+
  CorrelationId int32 0+ -- copied from the request
