# Client names the SASL mechanism it wants; broker lists those it allows.

api 17 SaslHandshake
serve 0-1 gr_handle_sasl_handshake
request SaslHandshakeRequest versions 0-1 flexible none
  Mechanism string 0+ -- SASL mechanism wanted, e.g. PLAIN

response SaslHandshakeResponse versions 0-1 flexible none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  Mechanisms []string 0+ -- mechanisms the broker allows
