# An authenticated client asks for a new delegation token.

api 38 CreateDelegationToken
request CreateDelegationTokenRequest versions 0-3 flexible 2+
  OwnerPrincipalType string 3+ nullable=3+ -- owner type, null for requester
  OwnerPrincipalName string 3+ nullable=3+ -- owner name, null for requester
  Renewers []CreatableRenewers 0+ -- principals allowed to renew
    PrincipalType string 0+ -- principal type, e.g. User
    PrincipalName string 0+ -- principal name
  MaxLifetimeMs int64 0+ -- max token life in ms, -1 default

response CreateDelegationTokenResponse versions 0-3 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  PrincipalType string 0+ -- owner principal type
  PrincipalName string 0+ -- owner principal name
  TokenRequesterPrincipalType string 3+ -- type of principal that asked for the token
  TokenRequesterPrincipalName string 3+ -- name of principal that asked for the token
  IssueTimestampMs int64 0+ -- issue time in epoch ms
  ExpiryTimestampMs int64 0+ -- expiry time in epoch ms
  MaxTimestampMs int64 0+ -- latest allowed expiry in epoch ms
  TokenId string 0+ -- token id
  Hmac bytes 0+ -- token HMAC
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
