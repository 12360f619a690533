# Client lists delegation tokens, optionally only those of some owners.

api 41 DescribeDelegationToken
request DescribeDelegationTokenRequest versions 0-3 flexible 2+
  Owners []DescribeDelegationTokenOwner 0+ nullable=0+ -- owners to match, null for all
    PrincipalType string 0+ -- principal type, e.g. User
    PrincipalName string 0+ -- principal name

response DescribeDelegationTokenResponse versions 0-3 flexible 2+
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  Tokens []DescribedDelegationToken 0+ -- matching tokens
    PrincipalType string 0+ -- owner principal type
    PrincipalName string 0+ -- owner principal name
    TokenRequesterPrincipalType string 3+ -- type of principal that asked for the token
    TokenRequesterPrincipalName string 3+ -- name of principal that asked for the token
    IssueTimestamp int64 0+ -- issue time in epoch ms
    ExpiryTimestamp int64 0+ -- expiry time in epoch ms
    MaxTimestamp int64 0+ -- latest allowed expiry in epoch ms
    TokenId string 0+ -- token id
    Hmac bytes 0+ -- token HMAC
    Renewers []DescribedDelegationTokenRenewer 0+ -- principals allowed to renew
      PrincipalType string 0+ -- principal type, e.g. User
      PrincipalName string 0+ -- principal name
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
