# A broker forwards a client request to the controller, wrapped together
# with the client's principal and address.

api 58 Envelope
request EnvelopeRequest versions 0 flexible 0+
  RequestData bytes 0+ -- wrapped request bytes
  RequestPrincipal bytes 0+ nullable=0+ -- serialized client principal
  ClientHostAddress bytes 0+ -- client IP address bytes

response EnvelopeResponse versions 0 flexible 0+
  ResponseData bytes 0+ nullable=0+ default=null -- wrapped response bytes, or null
  ErrorCode int16 0+ -- Kafka error code, 0 on success
