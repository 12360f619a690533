# expect: 5: duplicate field Count
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 0+ -- first
  Count int64 1+ -- second, same name
response SampleResponse versions 0-1 flexible none
