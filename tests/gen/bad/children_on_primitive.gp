# expect: 4: a int32 field has no children
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 0+ -- a scalar
    Part int32 0+ -- cannot be inside it
response SampleResponse versions 0-1 flexible none
