# Admin tool adds, replaces or deletes users' SCRAM credentials.

api 51 AlterUserScramCredentials
serve 0 gr_handle_alter_user_scram_credentials
request AlterUserScramCredentialsRequest versions 0 flexible 0+
  Deletions []ScramCredentialDeletion 0+ -- credentials to delete
    Name string 0+ -- user name
    Mechanism int8 0+ -- SCRAM mechanism code
  Upsertions []ScramCredentialUpsertion 0+ -- credentials to add or replace
    Name string 0+ -- user name
    Mechanism int8 0+ -- SCRAM mechanism code
    Iterations int32 0+ -- hash iteration count
    Salt bytes 0+ -- random salt
    SaltedPassword bytes 0+ -- salted password hash

response AlterUserScramCredentialsResponse versions 0 flexible 0+
  ThrottleTimeMs int32 0+ -- quota throttle delay in ms, 0 if none
  Results []AlterUserScramCredentialsResult 0+ -- per-user results
    User string 0+ -- user name
    ErrorCode int16 0+ -- Kafka error code, 0 on success
    ErrorMessage string 0+ nullable=0+ -- readable error detail, or null
