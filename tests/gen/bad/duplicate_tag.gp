# expect: 5: duplicate tag 0
api 9000 Sample
request SampleRequest versions 0-2 flexible 1+
  Count int32 1+ tag=0 tagged=1+ -- first
  Total int32 1+ tag=0 tagged=1+ -- same tag
response SampleResponse versions 0-2 flexible 1+
