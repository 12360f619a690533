# Admin tool lists the SCRAM mechanisms configured for users.

api 50 DescribeUserScramCredentials
serve 0 gr_handle_describe_user_scram_credentials
request DescribeUserScramCredentialsRequest versions 0 flexible 0+
  Users []UserName 0+ nullable=0+ -- users to describe, null for all
    Name string 0+ -- user name

response DescribeUserScramCredentialsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  ErrorCode int16 0+ -- Kafka error code, 0 on success
  ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
  Results []DescribeUserScramCredentialsResult 0+ -- per-user results
    User string 0+ -- user name
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
    CredentialInfos []CredentialInfo 0+ -- mechanisms the user has
      Mechanism int8 0+ -- SCRAM mechanism code
      Iterations int32 0+ -- hash iteration count
