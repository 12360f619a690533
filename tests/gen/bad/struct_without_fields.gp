# expect: 5: struct Empty has no fields
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Items []Empty 0+ -- elements of a struct with nothing in it
struct Empty versions 0+
response SampleResponse versions 0-1 flexible none
