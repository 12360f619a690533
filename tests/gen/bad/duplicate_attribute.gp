# expect: 4: attribute default given twice
api 9000 Sample
request SampleRequest versions 0-1 flexible none
  Count int32 0+ default=1 default=2 -- which one?
response SampleResponse versions 0-1 flexible none
