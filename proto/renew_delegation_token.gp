api 39 RenewDelegationToken
request RenewDelegationTokenRequest versions 0-2 flexible 2+
  Hmac bytes 0+
  RenewPeriodMs int64 0+

response RenewDelegationTokenResponse versions 0-2 flexible 2+
  ErrorCode int16 0+
  ExpiryTimestampMs int64 0+
  ThrottleTimeMs int32 0+
