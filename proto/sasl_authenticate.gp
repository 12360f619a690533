api 36 SaslAuthenticate
request SaslAuthenticateRequest versions 0-2 flexible 2+
  AuthBytes bytes 0+

response SaslAuthenticateResponse versions 0-2 flexible 2+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  AuthBytes bytes 0+
  SessionLifetimeMs int64 1+ default=0 ignorable
