# Client shortens a delegation token's life, or expires it at once.

api 40 ExpireDelegationToken
request ExpireDelegationTokenRequest versions 0-2 flexible 2+
  Hmac bytes 0+ -- token HMAC
  ExpiryTimePeriodMs int64 0+ -- new life from now in ms, -1 now

response ExpireDelegationTokenResponse versions 0-2 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ExpiryTimestampMs int64 0+ -- expiry time in epoch ms
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
