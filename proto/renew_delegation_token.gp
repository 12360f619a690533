# Client pushes a delegation token's expiry further out.

api 39 RenewDelegationToken
request RenewDelegationTokenRequest versions 0-2 flexible 2+
  Hmac bytes 0+ -- token HMAC
  RenewPeriodMs int64 0+ -- extend life by this many ms

response RenewDelegationTokenResponse versions 0-2 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ExpiryTimestampMs int64 0+ -- expiry time in epoch ms
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
