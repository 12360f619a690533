api 58 Envelope
request EnvelopeRequest versions 0 flexible 0+
  RequestData bytes 0+
  RequestPrincipal bytes 0+ nullable=0+
  ClientHostAddress bytes 0+

response EnvelopeResponse versions 0 flexible 0+
  ResponseData bytes 0+ nullable=0+ default=null
  ErrorCode int16 0+
