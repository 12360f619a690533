api 51 AlterUserScramCredentials
request AlterUserScramCredentialsRequest versions 0 flexible 0+
  Deletions []ScramCredentialDeletion 0+
    Name string 0+
    Mechanism int8 0+
  Upsertions []ScramCredentialUpsertion 0+
    Name string 0+
    Mechanism int8 0+
    Iterations int32 0+
    Salt bytes 0+
    SaltedPassword bytes 0+

response AlterUserScramCredentialsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+
  Results []AlterUserScramCredentialsResult 0+
    User string 0+
    ErrorCode int16 0+
    ErrorMessage string 0+ nullable=0+
