api 17 SaslHandshake
request SaslHandshakeRequest versions 0-1 flexible none
  Mechanism string 0+

response SaslHandshakeResponse versions 0-1 flexible none
  ErrorCode int16 0+
  Mechanisms []string 0+
