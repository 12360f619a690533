api 50 DescribeUserScramCredentials
request DescribeUserScramCredentialsRequest versions 0 flexible 0+
  Users []UserName 0+ nullable=0+
    Name string 0+

response DescribeUserScramCredentialsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  ErrorCode int16 0+
  ErrorMessage string 0+ nullable=0+
  Results []DescribeUserScramCredentialsResult 0+
    User string 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
    CredentialInfos []CredentialInfo 0+
      Mechanism int8 0+
      Iterations int32 0+
