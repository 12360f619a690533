# expect: 6: struct Spare is not used by SampleResponse
api 9000 Sample
request SampleRequest versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
  Count int32 0+ -- count
struct Spare versions 0+
  Name string 0+ -- never referenced
