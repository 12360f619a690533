# Carries SASL exchange tokens after the mechanism is chosen.

api 36 SaslAuthenticate
serve 0-2 gr_handle_sasl_authenticate
request SaslAuthenticateRequest versions 0-2 flexible 2+
  AuthBytes bytes 0+ -- SASL exchange bytes

response SaslAuthenticateResponse versions 0-2 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  AuthBytes bytes 0+ -- SASL exchange bytes
  SessionLifetimeMs int64 1+ default=0 ignorable -- session lifetime in ms, 0 none
