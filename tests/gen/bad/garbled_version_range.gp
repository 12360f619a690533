# expect: 4: bad version range '1..3'
api 9000 Sample
request SampleRequest versions 0-3 flexible none
  Count int32 1..3 -- not a range
response SampleResponse versions 0-3 flexible none
