api 41 DescribeDelegationToken
request DescribeDelegationTokenRequest versions 0-3 flexible 2+
  Owners []DescribeDelegationTokenOwner 0+ nullable=0+
    PrincipalType string 0+
    PrincipalName string 0+

response DescribeDelegationTokenResponse versions 0-3 flexible 2+
  ErrorCode int16 0+
  Tokens []DescribedDelegationToken 0+
    PrincipalType string 0+
    PrincipalName string 0+
    TokenRequesterPrincipalType string 3+
    TokenRequesterPrincipalName string 3+
    IssueTimestamp int64 0+
    ExpiryTimestamp int64 0+
    MaxTimestamp int64 0+
    TokenId string 0+
    Hmac bytes 0+
    Renewers []DescribedDelegationTokenRenewer 0+
      PrincipalType string 0+
      PrincipalName string 0+
  ThrottleTimeMs int32 0+
