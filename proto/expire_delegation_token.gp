api 40 ExpireDelegationToken
request ExpireDelegationTokenRequest versions 0-2 flexible 2+
  Hmac bytes 0+
  ExpiryTimePeriodMs int64 0+

response ExpireDelegationTokenResponse versions 0-2 flexible 2+
  ErrorCode int16 0+
  ExpiryTimestampMs int64 0+
  ThrottleTimeMs int32 0+
