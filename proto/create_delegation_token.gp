api 38 CreateDelegationToken
request CreateDelegationTokenRequest versions 0-3 flexible 2+
  OwnerPrincipalType string 3+ nullable=3+
  OwnerPrincipalName string 3+ nullable=3+
  Renewers []CreatableRenewers 0+
    PrincipalType string 0+
    PrincipalName string 0+
  MaxLifetimeMs int64 0+

response CreateDelegationTokenResponse versions 0-3 flexible 2+
  ErrorCode int16 0+
  PrincipalType string 0+
  PrincipalName string 0+
  TokenRequesterPrincipalType string 3+
  TokenRequesterPrincipalName string 3+
  IssueTimestampMs int64 0+
  ExpiryTimestampMs int64 0+
  MaxTimestampMs int64 0+
  TokenId string 0+
  Hmac bytes 0+
  ThrottleTimeMs int32 0+
